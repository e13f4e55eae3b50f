"""The disk cache of compiled kernels (csrc/runtime/disk_cache.*), exercised without a GPU
through ember._C._jit_testing: the entry format, refusal of truncated, corrupt and foreign
files, and several processes storing one key at once."""
import hashlib
import multiprocessing
import os
import pathlib
import subprocess
import sys

import pytest

import ember

T = ember._C._jit_testing


def test_sha256_matches_hashlib():
    for data in [b"", b"abc", b"a" * 1000, bytes(range(256)) * 40]:
        assert T.sha256(data) == hashlib.sha256(data).hexdigest()


def test_store_then_load_round_trips(tmp_path):
    assert T.cache_load(str(tmp_path), "key") == ("miss", None, "")
    assert T.cache_store(str(tmp_path), "key", b"\x00payload\xff")
    assert T.cache_load(str(tmp_path), "key") == ("hit", b"\x00payload\xff", "")
    path = T.cache_path(str(tmp_path), "key")
    digest = hashlib.sha256(b"key").hexdigest()
    assert path == os.path.join(str(tmp_path), digest[:2], digest + ".bin")
    assert os.path.getsize(path) == 88 + len(b"\x00payload\xff")
    assert not [p for p in os.listdir(os.path.dirname(path)) if ".tmp." in p]


def test_empty_payload_and_overwrite(tmp_path):
    assert T.cache_store(str(tmp_path), "k", b"")
    assert T.cache_load(str(tmp_path), "k") == ("hit", b"", "")
    assert T.cache_store(str(tmp_path), "k", b"second")
    assert T.cache_load(str(tmp_path), "k")[1] == b"second"


@pytest.mark.parametrize("cut", [0, 10, 87, 88, 100])
def test_truncated_entry_is_refused(tmp_path, cut):
    T.cache_store(str(tmp_path), "k", b"x" * 64)
    path = T.cache_path(str(tmp_path), "k")
    with open(path, "r+b") as f:
        f.truncate(cut)
    status, payload, reason = T.cache_load(str(tmp_path), "k")
    assert (status, payload) == ("corrupt", None)
    assert "truncated" in reason


@pytest.mark.parametrize("offset,reason", [(0, "not an ember cache entry"), (8, "format version"),
                                           (20, "another key"), (60, "checksum"),
                                           (100, "checksum")])
def test_flipped_byte_is_refused(tmp_path, offset, reason):
    T.cache_store(str(tmp_path), "k", b"y" * 64)
    path = T.cache_path(str(tmp_path), "k")
    data = bytearray(pathlib.Path(path).read_bytes())
    data[offset] ^= 0x40
    pathlib.Path(path).write_bytes(bytes(data))
    status, payload, why = T.cache_load(str(tmp_path), "k")
    assert (status, payload) == ("corrupt", None)
    assert reason in why


def test_grown_entry_is_refused(tmp_path):
    T.cache_store(str(tmp_path), "k", b"z" * 16)
    with open(T.cache_path(str(tmp_path), "k"), "ab") as f:
        f.write(b"garbage")
    assert T.cache_load(str(tmp_path), "k")[0] == "corrupt"


def test_entry_under_another_key_is_refused(tmp_path):
    T.cache_store(str(tmp_path), "a", b"payload")
    os.makedirs(os.path.dirname(T.cache_path(str(tmp_path), "b")), exist_ok=True)
    os.replace(T.cache_path(str(tmp_path), "a"), T.cache_path(str(tmp_path), "b"))
    assert T.cache_load(str(tmp_path), "b") == ("corrupt", None, "another key")


def test_corrupt_entry_is_replaced_by_store(tmp_path):
    T.cache_store(str(tmp_path), "k", b"good")
    path = T.cache_path(str(tmp_path), "k")
    pathlib.Path(path).write_bytes(b"junk")
    assert T.cache_load(str(tmp_path), "k")[0] == "corrupt"
    assert T.cache_store(str(tmp_path), "k", b"good again")
    assert T.cache_load(str(tmp_path), "k") == ("hit", b"good again", "")


def test_unwritable_directory_reports_false(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_bytes(b"")
    assert T.cache_store(str(blocker / "sub"), "k", b"p") is False
    assert T.cache_load(str(blocker / "sub"), "k")[0] == "miss"


def _writer(directory, key, payload, rounds):
    from ember._C import _jit_testing as t
    ok = True
    for _ in range(rounds):
        ok &= t.cache_store(directory, key, payload)
        status, got, _ = t.cache_load(directory, key)
        ok &= status == "hit" and got in (b"A" * 100000, b"B" * 100000, b"C" * 100000,
                                          b"D" * 100000)
    return ok


def test_concurrent_writers_never_expose_a_partial_entry(tmp_path):
    """Four processes store different 100 kB payloads under one key, 30 times each, and
    read it back between stores: every read is one complete payload (rename is atomic)."""
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(4) as pool:
        results = pool.starmap(_writer, [(str(tmp_path), "shared", c * 100000, 30)
                                         for c in (b"A", b"B", b"C", b"D")])
    assert all(results)
    status, payload, _ = T.cache_load(str(tmp_path), "shared")
    assert status == "hit" and len(payload) == 100000 and len(set(payload)) == 1
    leftovers = [p for _, _, files in os.walk(tmp_path) for p in files if ".tmp." in p]
    assert leftovers == []


def test_cache_root_follows_the_environment(tmp_path):
    code = "import ember; print(ember._C._jit_testing.cache_root())"
    env = dict(os.environ, EMBER_CACHE_DIR=str(tmp_path / "c"))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == str(tmp_path / "c")
    env = {k: v for k, v in os.environ.items() if k not in ("EMBER_CACHE_DIR", "XDG_CACHE_HOME")}
    env["HOME"] = str(tmp_path)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == str(tmp_path / ".cache" / "ember")
    env["XDG_CACHE_HOME"] = str(tmp_path / "xdg")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == str(tmp_path / "xdg" / "ember")
