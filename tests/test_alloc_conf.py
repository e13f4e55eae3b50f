"""EMBER_CUDA_ALLOC_CONF: the parser (a pure function) and the process's
configuration read from the environment."""
import os
import subprocess
import sys

import pytest

import ember

M = ember._C._memory
MiB = 1024 * 1024


def parse(text):
    return M.parse_alloc_conf(text)


def test_defaults():
    for text in ("", "   "):
        c = parse(text)
        assert c == {"max_split_size": None, "garbage_collection_threshold": 0.0,
                     "roundup_power2_divisions": 0, "caching": True, "str": ""}


def test_all_supported_keys():
    c = parse(" max_split_size_mb : 128 ,garbage_collection_threshold:0.8,"
              "roundup_power2_divisions:4, caching:False,backend:native,"
              "expandable_segments:False")
    assert c["max_split_size"] == 128 * MiB
    assert c["garbage_collection_threshold"] == 0.8
    assert c["roundup_power2_divisions"] == 4
    assert c["caching"] is False
    assert c["str"] == ("max_split_size_mb:128,garbage_collection_threshold:0.8,"
                        "roundup_power2_divisions:4,caching:False")
    assert parse(c["str"]) == c


@pytest.mark.parametrize("value, expected", [("True", True), ("true", True), ("1", True),
                                             ("False", False), ("false", False), ("0", False)])
def test_caching_booleans(value, expected):
    assert parse(f"caching:{value}")["caching"] is expected


@pytest.mark.parametrize("text, match", [
    ("max_split_size_mb:20", "greater than 20"),
    ("max_split_size_mb:0", "greater than 20"),
    ("max_split_size_mb:-5", "greater than 20"),
    ("max_split_size_mb:1.5", "greater than 20"),
    ("max_split_size_mb:abc", "invalid value 'abc'"),
    ("max_split_size_mb:", "invalid value ''"),
    ("max_split_size_mb:99999999999999999999", "greater than 20"),
    ("garbage_collection_threshold:0", "strictly between 0 and 1"),
    ("garbage_collection_threshold:1", "strictly between 0 and 1"),
    ("garbage_collection_threshold:1.5", "strictly between 0 and 1"),
    ("garbage_collection_threshold:nan", "strictly between 0 and 1"),
    ("garbage_collection_threshold:0.5x", "strictly between 0 and 1"),
    ("roundup_power2_divisions:3", "power of two"),
    ("roundup_power2_divisions:0", "power of two"),
    ("roundup_power2_divisions:[256:1,>:4]", "list form is not supported"),
    ("caching:maybe", "True or False"),
    ("backend:cudaMallocAsync", "no cudaMallocAsync backend"),
    ("expandable_segments:True", "does not implement expandable segments"),
    ("release_lock_on_cudamalloc:True", "not implemented by ember"),
    ("pinned_use_cuda_host_register:True", "not implemented by ember"),
    ("max_split_size:128", "unknown option 'max_split_size'"),
    ("colour:blue", "unknown option 'colour'.*supported options: max_split_size_mb"),
    ("max_split_size_mb", "has no value"),
    ("max_split_size_mb:128,", "empty entry"),
    (",caching:True", "empty entry"),
    ("caching:True,caching:False", "given twice"),
])
def test_errors_name_the_problem(text, match):
    with pytest.raises(ValueError, match=match) as info:
        parse(text)
    assert "EMBER_CUDA_ALLOC_CONF" in str(info.value)


def run_with_conf(conf, code):
    env = dict(os.environ)
    env["EMBER_CUDA_ALLOC_CONF"] = conf
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=60)


def test_process_configuration_is_read_from_the_environment():
    out = run_with_conf("max_split_size_mb:256,caching:False",
                        "import ember; print(ember._C.cuda._alloc_conf()); "
                        "print(ember.cuda.memory_stats()['max_split_size'])")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["max_split_size_mb:256,caching:False", str(256 * MiB)]


def test_invalid_environment_raises_on_every_use_and_import_still_works():
    code = ("import ember\n"
            "for _ in range(2):\n"
            "    try:\n"
            "        ember.cuda.memory_stats()\n"
            "    except ValueError as e:\n"
            "        print('ValueError:', e)\n"
            "print(ember.cuda.memory_allocated())\n")
    out = run_with_conf("max_split_size_mb:12", code)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 3
    assert lines[0] == lines[1]
    assert lines[0].startswith("ValueError: EMBER_CUDA_ALLOC_CONF: invalid value '12' for "
                               "max_split_size_mb")
    assert lines[2] == "0"


def test_sim_allocator_rejects_bad_configuration():
    with pytest.raises(ValueError, match="unknown option"):
        M._SimAllocator(1 << 30, "nonsense:1")
