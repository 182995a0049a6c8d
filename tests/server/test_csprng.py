"""The server's dice come from the OS CSPRNG, a buffer at a time, never repeated in a fork."""

from __future__ import annotations

import os

from server.csprng import BufferedSystemRandom


def test_draws_cover_the_faces_and_stay_in_range() -> None:
    """randint, getrandbits and random stay in range; 6,000 d6 show every face."""
    rng = BufferedSystemRandom(buffer_bytes=64)  # refilled often
    faces = [rng.randint(1, 6) for _ in range(6000)]
    assert set(faces) == {1, 2, 3, 4, 5, 6}
    assert all(700 < faces.count(face) < 1300 for face in range(1, 7))
    assert all(0 <= rng.getrandbits(k) < 2**k for k in (1, 7, 8, 9, 63, 64, 65, 200))
    assert all(0.0 <= rng.random() < 1.0 for _ in range(1000))
    assert len(rng.randbytes(10_000)) == 10_000  # more than a buffer: read directly


def test_a_forked_child_does_not_repeat_its_parents_bytes() -> None:
    """After a fork the child's buffer is empty: its draws are not the parent's next ones."""
    rng = BufferedSystemRandom()
    rng.randbytes(1)  # the buffer is filled
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: send its next 32 bytes and leave at once
        os.write(write, rng.randbytes(32))
        os._exit(0)
    os.close(write)
    child = os.read(read, 32)
    os.close(read)
    os.waitpid(pid, 0)
    assert child != rng.randbytes(32)
