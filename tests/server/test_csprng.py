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


def test_a_die_takes_one_byte_and_rejects_the_bytes_that_would_bias_it() -> None:
    """Dice rule: every face equally likely. A d6 maps bytes 0-251 six-to-one (42 each) and
    draws again on 252-255; those four bytes would make faces 1-4 likelier than 5 and 6."""
    rng = BufferedSystemRandom()
    rng._buffer, rng._at = bytes([255, 252, 251, 6, 0]), 0  # known bytes
    assert [rng.randint(1, 6) for _ in range(3)] == [6, 1, 1]  # 255 and 252 drawn again
    assert rng._at == 5  # one byte a die, two thrown away
    for sides in range(1, 257):  # every byte kept maps to each face equally often
        limit = 256 - 256 % sides
        counts = [0] * sides
        for byte in range(limit):
            counts[byte % sides] += 1
        assert len(set(counts)) == 1 and limit > 256 - sides


def test_large_ranges_and_unusual_arguments_keep_randoms_meaning() -> None:
    """Past a byte, and for ranges ``randint`` refuses, the draws are ``random``'s own."""
    rng = BufferedSystemRandom(buffer_bytes=64)
    assert all(0 <= rng.randrange(1000) < 1000 for _ in range(2000))
    assert {rng.randrange(257) for _ in range(20_000)} == set(range(257))
    assert all(10 <= rng.randrange(10, 20, 5) < 20 for _ in range(100))
    assert rng.randint(5, 5) == 5
    for bad in ((6, 1), (1, "6")):
        try:
            rng.randint(*bad)  # type: ignore[arg-type]
        except (ValueError, TypeError):
            continue
        raise AssertionError(f"randint{bad} should be refused")
