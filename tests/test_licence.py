"""A builder may copy the code and the parts: the licences are there, and the
package says which one it is under."""

import tomllib

from conftest import ROOT


def test_the_package_declares_mit_and_ships_both_licence_files():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE", "hardware/LICENSE"]
    assert (ROOT / "LICENSE").read_text().startswith("MIT License\n\nCopyright (c) 2026 the Dr. Nim Controller authors")
    hardware = (ROOT / "hardware" / "LICENSE").read_text()
    assert hardware.startswith("CERN Open Hardware Licence Version 2 - Permissive\n")
    assert "7.4 This Licence shall not be enforceable" in hardware


def test_both_readmes_name_the_licences():
    for readme in (ROOT / "README.md", ROOT / "hardware" / "README.md"):
        text = readme.read_text(encoding="utf-8")
        assert "MIT" in text and "CERN Open Hardware Licence Version 2 - Permissive" in text, readme
