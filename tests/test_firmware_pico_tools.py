"""What the emulated Pico (controller/firmware/rp2040.py) needs, checked before Node.js is."""

import pytest

from controller.firmware.rp2040 import tools
from controller.firmware.tools import FirmwareError


def test_a_uf2_named_with_a_typo_is_said_to_be_no_file_not_a_missing_boot_rom(tmp_path, monkeypatch):
    """`--uf2` naming a file that is not there, with no boot ROM named: the UF2 is the one to fix.
    (It asked for bootrom-b1.bin beside a UF2 that is not there.)"""
    monkeypatch.delenv("CONTROLLER_PICO_UF2", raising=False)
    monkeypatch.delenv("CONTROLLER_RP2040_BOOTROM", raising=False)
    (tmp_path / "Downloads").mkdir()
    (tmp_path / "Downloads" / "RPI_PICO.uf2").write_bytes(b"\0" * 512)
    (tmp_path / "Downloads" / "bootrom-b1.bin").write_bytes(b"\0" * 16384)
    typo = str(tmp_path / "Downlaods" / "RPI_PICO.uf2")
    with pytest.raises(FirmwareError, match=r"^--uf2: .*Downlaods/RPI_PICO\.uf2 is not a file$"):
        tools(typo)
    monkeypatch.setenv("CONTROLLER_PICO_UF2", typo)
    with pytest.raises(FirmwareError, match=r"^CONTROLLER_PICO_UF2: .*Downlaods/RPI_PICO\.uf2 is not a file$"):
        tools()


def test_rp2040js_fetched_into_the_cache_says_so_first_and_once(tmp_path, monkeypatch, capsys):
    """An installed controller (or a checkout where make has not fetched it) fetches rp2040js into the
    user's cache with npm ci: the first `--emulate rp2040` said nothing for most of a minute meanwhile."""
    import os
    import shutil
    import stat
    from controller.firmware import rp2040
    checkout = tmp_path / "pico"
    checkout.mkdir()
    for name in rp2040.HARNESS_FILES:
        shutil.copyfile(rp2040.HARNESS / name, checkout / name)
    monkeypatch.setattr(rp2040, "HARNESS", checkout)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    npm = tmp_path / "bin" / "npm"
    npm.parent.mkdir()
    npm.write_text("#!/bin/sh\nmkdir -p node_modules/rp2040js\n")
    npm.chmod(npm.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", "%s%s%s" % (npm.parent, os.pathsep, os.environ["PATH"]))
    folder = tmp_path / "cache" / "drnim-controller" / "pico"
    assert rp2040.harness() == folder and (folder / "node_modules" / "rp2040js").is_dir()
    assert capsys.readouterr().err == "controller firmware: fetching rp2040js, the RP2040's emulator, into %s " \
        "(once: npm ci, a minute or less)\n" % folder
    assert rp2040.harness() == folder
    assert capsys.readouterr().err == ""
