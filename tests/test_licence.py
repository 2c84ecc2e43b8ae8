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


def test_every_design_file_names_its_licence():
    """Each design file under hardware/ carries an SPDX header; the files that cannot (the parts
    lists, pictures and printable cards) are covered by REUSE.toml."""
    from fnmatch import fnmatch
    reuse = tomllib.loads((ROOT / "REUSE.toml").read_text())
    covered = [(pattern, annotation["SPDX-License-Identifier"]) for annotation in reuse["annotations"]
               for pattern in annotation["path"]]
    missing = []
    for path in sorted((ROOT / "hardware").rglob("*")):
        if not path.is_file() or path.name == "LICENSE":
            continue
        name = path.relative_to(ROOT).as_posix()
        if path.suffix in (".scad", ".toml", ".md", ".svg"):
            head = path.read_text(encoding="utf-8")[:300]
            if "SPDX-License-Identifier: CERN-OHL-P-2.0" not in head:
                missing.append(name)
        elif not any(fnmatch(name, pattern) and licence == "CERN-OHL-P-2.0" for pattern, licence in covered):
            missing.append(name)
    assert missing == []
