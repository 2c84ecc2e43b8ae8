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
