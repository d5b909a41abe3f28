"""What compiled code depends on besides its own file (simcore/codehash.py): the values and
helpers a bot's code reaches key its compiled copy, so a warm cache never runs stale code
(tests/test_plugins.py runs the same through the command line)."""
import types
from pathlib import Path

import numpy as np
from numba import njit

from bots.registry import source_digest
from simcore.codehash import reached


def _module(source: str, name: str) -> types.ModuleType:
    m = types.ModuleType(name)
    exec(compile(source, f"<{name}>", "exec"), vars(m))
    return m


def test_a_constant_read_at_import_keys_the_bot():
    m = _module("LAST = 0\nTABLE = None\ndef policy(view, legal, n, *rest):\n    return legal[(n - 1) * LAST] + TABLE[0]\n",
                "script_bot")
    m.TABLE = np.zeros(3, np.int64)
    before = source_digest((m.policy,))
    m.LAST = 1  # as a script that read it from a file would have it
    assert source_digest((m.policy,)) != before
    m.LAST = 0
    assert source_digest((m.policy,)) == before
    m.TABLE[0] = 7  # an array's contents, not only its shape
    assert source_digest((m.policy,)) != before


def test_helpers_are_followed_through_globals_attributes_and_closures():
    helper = _module("K = 3\ndef pick(legal, n):\n    return legal[K]\n", "helper_mod")
    helper.pick = njit(helper.pick)
    user = _module("def by_attribute(legal, n):\n    return helper_mod.pick(legal, n)\n", "user_mod")
    user.helper_mod = helper

    def make(k):
        def closure(legal, n):
            return legal[k]
        return closure

    _, values = reached((user.by_attribute,))
    assert any(v.startswith(b"helper_mod.K=") for v in values)
    a, b = reached((make(1),))[1], reached((make(2),))[1]
    assert a != b
    # values of kinds Numba does not freeze are left out: their repr need not repeat
    odd = _module("D = {'a': 1}\ndef f():\n    return D\n", "odd_mod")
    assert reached((odd.f,))[1] == []


_DIGEST_OF_INSTALLED_PLUGIN = """
import sys
import simcore.codehash as codehash
site = sys.argv[1]
real = codehash.site_roots()
codehash.site_roots = lambda: real + (site,)  # the folder stands for one pip installs into
sys.path.insert(0, site)
from runtime.plugins import load_plugin, plugin_digest
load_plugin("plkeyfake")
print(plugin_digest("plkeyfake"))
"""


def test_a_plugin_installed_as_a_distribution_is_keyed_by_its_code_and_the_libraries_it_calls(tmp_path):
    """pip puts a plugin beside numpy, where no file is read: its own package is keyed file by
    file all the same, and a library it calls by its version (an upgrade of either once kept
    the digest of nothing, so a resumed study mixed the old code's games with the new's)."""
    import hashlib
    import shutil
    import subprocess
    import sys

    site = tmp_path / "site"
    (site / "plkeyfake").mkdir(parents=True)
    (site / "plkeylib").mkdir()
    (site / "plkeylib-1.0.dist-info").mkdir()
    (site / "plkeylib-1.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: plkeylib\nVersion: 1.0\n")
    (site / "plkeylib-1.0.dist-info" / "top_level.txt").write_text("plkeylib\n")
    (site / "plkeylib" / "__init__.py").write_text("from numba import njit\n@njit\ndef pick(legal, n):\n    return legal[0]\n")
    (site / "plkeyfake" / "helper.py").write_text("def shift(n):\n    return 0\n")
    (site / "plkeyfake" / "__init__.py").write_text(
        "import playlab\nimport plkeylib\nfrom .helper import shift\n"
        "def policy(view, legal, n, bp, params, rng, seat, imem, fmem):\n"
        "    return plkeylib.pick(legal, n) + shift(n)\n"
        "playlab.register_bot(playlab.BotSpec('keyfake', 'x'), policy, games=('moon',))\n")

    def digest(where=site):
        r = subprocess.run([sys.executable, "-c", _DIGEST_OF_INSTALLED_PLUGIN, str(where.resolve())],
                           capture_output=True, text=True, cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        return r.stdout.strip()

    first = digest()
    assert first != hashlib.sha256().hexdigest()[:16] and digest() == first
    # the same install in another venv (another machine of a cluster) is the same code
    assert digest(Path(shutil.copytree(site, tmp_path / "elsewhere" / "site"))) == first
    (site / "plkeyfake" / "helper.py").write_text("def shift(n):\n    return 0 * n\n")
    edited = digest()
    assert edited != first
    meta = site / "plkeylib-1.0.dist-info" / "METADATA"
    meta.write_text(meta.read_text().replace("Version: 1.0", "Version: 1.1"))
    bumped = digest()
    assert bumped != edited
    # reinstalled with edits under the same version: pip's RECORD holds other hashes
    record = site / "plkeylib-1.0.dist-info" / "RECORD"
    record.write_text("plkeylib/__init__.py,sha256=AAAA,70\nplkeylib-1.0.dist-info/METADATA,,\n")
    recorded = digest()
    assert recorded != bumped
    # where it was installed from and by which installer is no part of the library
    record.write_text(record.read_text() + "plkeylib-1.0.dist-info/INSTALLER,sha256=BBBB,4\n"
                      "../../../bin/plkeylib,sha256=CCCC,200\n")
    assert digest() == recorded
    record.write_text(record.read_text().replace("sha256=AAAA", "sha256=DDDD"))
    assert digest() != recorded


def test_an_agent_installed_as_a_distribution_is_keyed_by_its_packages_files(tmp_path):
    import subprocess
    import sys

    site = tmp_path / "site"
    (site / "plagentfake").mkdir(parents=True)
    (site / "plagentfake" / "__init__.py").write_text("")
    (site / "plagentfake" / "brain.py").write_text("def choose(legal):\n    return legal[0]\n")
    (site / "plagentfake" / "agent.py").write_text(
        "from .brain import choose\nclass First:\n    def __init__(self, **kw):\n        pass\n"
        "    def act(self, view):\n        return choose(view.legal_actions)\n")
    script = _DIGEST_OF_INSTALLED_PLUGIN.split("from runtime.plugins")[0] + (
        "from runtime.agents import agent_files\nprint('\\n'.join(agent_files('plagentfake.agent', 'First')))\n")
    r = subprocess.run([sys.executable, "-c", script, str(site.resolve())], capture_output=True, text=True,
                       cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    files = [Path(f).name for f in r.stdout.split()]
    assert files[0] == "agent.py" and "brain.py" in files


def test_an_agent_is_keyed_by_the_installed_libraries_it_imports(tmp_path):
    """An agent importing a library outside playlab's environment, even only inside
    ``act``, plays other moves after that library's upgrade: the study's identity and a
    worker's check hold the library's version and installed files."""
    import subprocess
    import sys

    site = tmp_path / "site"
    (site / "plagentlib").mkdir(parents=True)
    info = site / "plagentlib-2.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: plagentlib\nVersion: 2.0\n")
    (info / "top_level.txt").write_text("plagentlib\n")
    (site / "plagentlib" / "__init__.py").write_text("def choose(legal):\n    return legal[0]\n")
    agent = tmp_path / "lazy.py"
    agent.write_text("import os\nimport numpy\nclass First:\n    def __init__(self, **kw):\n        pass\n"
                     "    def act(self, view):\n        import plagentlib\n"
                     "        return plagentlib.choose(view.legal_actions)\n")
    script = _DIGEST_OF_INSTALLED_PLUGIN.split("from runtime.plugins")[0] + (
        "from runtime.agents import agent_libraries\n"
        "from runtime.runner import RunConfig\n"
        "from experiments.store import _user_code\n"
        f"print(agent_libraries({str(agent)!r}, 'First'))\n"
        f"config = RunConfig.build('moon', 3, 'py:{agent}:First,random,random', {{}}, 1)\n"
        "print(_user_code(config))\n"
        "import os, pickle\n"
        "if os.path.exists('sent.pkl'):  # a run sent from where the library was older\n"
        "    try:\n"
        "        pickle.loads(open('sent.pkl', 'rb').read())\n"
        "        print('accepted')\n"
        "    except ValueError as exc:\n"
        "        print(exc)\n"
        "else:\n"
        "    open('sent.pkl', 'wb').write(pickle.dumps(config))\n")

    def run():
        r = subprocess.run([sys.executable, "-c", script, str(site.resolve())], capture_output=True, text=True,
                           cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        return r.stdout.splitlines()

    libraries, first = run()
    # Python's own os and numpy (playlab's environment) are no library of the agent's
    assert libraries == "[b'distribution plagentlib==2.0']"
    meta = info / "METADATA"
    meta.write_text(meta.read_text().replace("Version: 2.0", "Version: 2.1"))
    libraries, upgraded, received = run()
    assert libraries == "[b'distribution plagentlib==2.1']" and upgraded != first
    # a worker with the upgrade refuses a run started beside the old version
    assert "imports other libraries here" in received and "plagentlib==2.0" in received


def test_an_editable_library_is_keyed_by_its_sources(tmp_path):
    """``pip install -e`` leaves in the site folder only a ``.pth`` pointing at the sources,
    so its RECORD says nothing of them: an edited source of an editable library changes its
    key, the same sources in another checkout do not, and a regular install reads none."""
    import json
    import subprocess
    import sys

    site = tmp_path / "site"
    info = site / "pleditfake-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: pleditfake\nVersion: 1.0\n")
    (info / "top_level.txt").write_text("pleditfake\n")
    (info / "RECORD").write_text("__editable__.pleditfake-1.0.pth,sha256=XPp0,14\n")
    direct = info / "direct_url.json"
    direct.write_text(json.dumps({"url": "file:///src", "dir_info": {"editable": True}}))
    pth = site / "__editable__.pleditfake-1.0.pth"
    for checkout in ("a", "b", "__pycache__/c"):
        (tmp_path / checkout / "pleditfake" / "__pycache__").mkdir(parents=True)
        (tmp_path / checkout / "pleditfake" / "__init__.py").write_text("from .brain import choose\n")
        (tmp_path / checkout / "pleditfake" / "brain.py").write_text("def choose(legal):\n    return legal[0]\n")
    script = ("import site, sys\nsite.addsitedir(sys.argv[1])\n"
              "from simcore.codehash import distributions_of\nprint(distributions_of(['pleditfake']))\n")

    def key(checkout="a"):
        pth.write_text(str(tmp_path / checkout) + "\n")
        r = subprocess.run([sys.executable, "-c", script, str(site)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        return r.stdout.strip()

    first = key()
    assert first.startswith("[b'distribution pleditfake==1.0 files:") and " sources:" in first
    (tmp_path / "a" / "pleditfake" / "__pycache__" / "brain.cpython.pyc").write_bytes(b"\0")
    assert key() == first  # compiled caches are not sources
    assert key("b") == first  # the same sources elsewhere
    assert key("__pycache__/c") == first  # even in a folder that happens to bear that name
    (tmp_path / "a" / "pleditfake" / "brain.py").write_text("def choose(legal):\n    return legal[-1]\n")
    edited = key()
    assert edited != first and edited.split(" sources:")[0] == first.split(" sources:")[0]
    direct.write_text(json.dumps({"url": "file:///src", "dir_info": {}}))  # a regular install
    assert " sources:" not in key()
