"""The server's secrets come straight from the OS (``secrets``), with no buffer of our own:
a forked process draws its own seeds, never its parent's."""

from __future__ import annotations

import os

from poolhall.server.auth import new_token
from poolhall.server.fair_seeds import system_seed


def test_seeds_and_tokens_are_fresh_draws_of_the_documented_size() -> None:
    """A seed is 256 bits and no two draws repeat; a token carries 256 bits too."""
    seeds = {system_seed() for _ in range(200)}
    assert len(seeds) == 200
    assert {len(s) for s in seeds} == {32}
    assert len({new_token() for _ in range(200)}) == 200


def test_a_forked_child_draws_seeds_its_parent_does_not() -> None:
    """A buffered generator must forget its buffer at fork; the OS source has none to forget:
    the child's next seed differs from the parent's."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: send one seed and leave at once, running no test machinery
        os.close(read)
        os.write(write, system_seed())
        os._exit(0)
    os.close(write)
    try:
        child = os.read(read, 64)
    finally:
        os.close(read)
        os.waitpid(pid, 0)
    assert len(child) == 32
    assert child != system_seed()
