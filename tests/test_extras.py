"""A missing optional part (an extra) is one line naming it and the command that adds it
to the very Python the controller runs in; the exhibit plays on without what it lacks."""

import io
import subprocess
import sys
import tomllib

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement

import service_rig
from conftest import ROOT, in_process
from controller.cli import main
from controller.extras import install_command, requirements
from service_rig import Rig

EXTRAS = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
PLATFORMS = [{"sys_platform": platform, "platform_machine": machine}
             for platform, machine in (("linux", "x86_64"), ("darwin", "arm64"), ("linux", "aarch64"))]


class NotInstalled:
    """An import finder for which the named packages are not installed, as pip would leave them."""

    def __init__(self, names):
        self.names = names

    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] in self.names:
            raise ModuleNotFoundError("No module named %r" % fullname, name=fullname)
        return None


def without(monkeypatch, *packages):
    """Import as if the `packages` were not installed: they, and what imported them, are imported anew."""
    for name in list(sys.modules):
        if name.split(".")[0] in packages or name.startswith(("controller.telemetry.publisher", "controller.sim.app",
                                                                "controller.hardware.lgpio_pins", "gpiozero.pins.lgpio",
                                                                "gpiozero.pins.rpigpio")):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(sys, "meta_path", [NotInstalled(packages)] + sys.meta_path)


def behaves_as(requirement):
    """What a requirement asks for, on each platform: (name, versions, wanted there)."""
    parsed = Requirement(requirement)
    marker = str(parsed.marker) if parsed.marker else None
    return [(parsed.name, parsed.specifier, Marker(marker).evaluate(dict(place, extra="")) if marker else True)
            for place in PLATFORMS]


@pytest.mark.parametrize("extra", sorted(EXTRAS))
def test_the_hint_installs_what_the_extra_lists(extra):
    assert [behaves_as(r) for r in requirements(extra)] == [behaves_as(r) for r in EXTRAS[extra]]


def test_the_hinted_command_runs_in_this_python():
    """pip takes the hint's words as they are, markers and all (--dry-run, from no index: what the
    test extra installed already satisfies them)."""
    words = install_command("telemetry").split(" ", 1)[1].split(" ", 3)
    assert words[:3] == ["-m", "pip", "install"]
    wanted = [r for extra in ("firmware", "telemetry", "ip", "sim", "cards", "hardware") for r in requirements(extra)]
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--no-index", "--quiet", *wanted],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_the_fleet_without_paho_says_what_to_install_and_opens_nothing(tmp_path, monkeypatch):
    without(monkeypatch, "paho")
    db = tmp_path / "fleet.sqlite"
    done = in_process(["fleet", "--broker", "localhost:1", "--db", str(db)])
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == "controller fleet: the broker is reached with paho-mqtt: paho is missing (the " \
                          "'telemetry' extra): %s -m pip install 'paho-mqtt<3,>=2'\n" % sys.executable
    assert not db.exists()


def test_a_service_with_telemetry_and_no_paho_plays_and_says_what_to_install(tmp_path, monkeypatch):
    without(monkeypatch, "paho")
    loaded = service_rig.load_config

    def telemetry_on(path):
        config = loaded(path)
        config.telemetry = dict(config.telemetry, enabled=True)
        return config
    monkeypatch.setattr(service_rig, "load_config", telemetry_on)
    rig = Rig(tmp_path, marbles=2, equalizer=False)
    rig.take(1)
    rig.hand_over()
    assert rig.machine.winner == "player"
    fault = "[telemetry] is enabled, but nothing is reported: paho is missing (the 'telemetry' extra): " \
            "%s -m pip install 'paho-mqtt<3,>=2'" % sys.executable
    assert rig.service.service_faults() == {"telemetry": fault}
    assert rig.log.count("fault: telemetry: " + fault) == 1
    rig.service.heartbeat()
    out = io.StringIO()
    main(["status", "--config", str(tmp_path / "config.toml")], out=out)
    assert "Service fault: telemetry: " + fault in out.getvalue()


def test_config_check_finds_telemetry_enabled_without_paho(tmp_path, monkeypatch):
    without(monkeypatch, "paho")
    config = tmp_path / "config.toml"
    config.write_text('[service]\nmachine = "drnim"\n[telemetry]\nenabled = true\n')
    done = in_process(["config", "check", str(config)])
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == "controller config check: %s: [telemetry] is enabled, but the service could not report: " \
                          "paho is missing (the 'telemetry' extra): %s -m pip install 'paho-mqtt<3,>=2'\n" \
                          % (config, sys.executable)


@pytest.mark.parametrize("checkout", [True, False])
def test_the_simulator_without_textual_says_what_to_install(monkeypatch, checkout):
    """`make simulate` only where there is a Makefile: an installed controller was offered it too (found by
    the packager's walkthrough)."""
    import controller.shipped
    without(monkeypatch, "textual")
    monkeypatch.setattr(controller.shipped, "in_checkout", lambda: checkout)
    done = in_process(["--simulate"])
    assert done.returncode == 2
    assert done.stderr.endswith("--simulate: the drawing needs Textual: textual is missing (the 'sim' extra): %s -m pip "
                                "install 'textual<9,>=8'%s\n" % (sys.executable, " (or make simulate)" * checkout))


def test_a_missing_gpio_backend_says_what_to_install(monkeypatch):
    from controller.service import daemon
    without(monkeypatch, "lgpio")
    monkeypatch.setattr(daemon, "_listdir", lambda folder: ["gpiochip0"])
    with pytest.raises(daemon.NoGPIO) as raised:
        daemon.pin_factory_for("lgpio")
    assert str(raised.value) == "the lgpio GPIO backend is not installed: lgpio is missing (the 'pi' " \
                                "extra): %s -m pip install 'lgpio>=0.2'; without hardware, use 'controller " \
                                "--simulate'" % sys.executable
    without(monkeypatch, "RPi")
    with pytest.raises(daemon.NoGPIO, match=r"the rpigpio GPIO backend is not installed: RPi is missing \(the 'rpigpio' "
                                            r"extra\): .* -m pip install RPi.GPIO; without hardware"):
        daemon.pin_factory_for("rpigpio")


def test_the_cards_without_cairosvg_say_what_to_install(tmp_path, monkeypatch, capsys):
    from controller import cards
    without(monkeypatch, "cairocffi", "cairosvg")
    assert cards.main(["--machine", "drnim", "--lang", "de", "--out", str(tmp_path)]) == 1
    assert capsys.readouterr().err == "controller.cards: the PDF is made with CairoSVG: cairocffi is missing (the " \
                                      "'cards' extra): %s -m pip install cairosvg\n" % sys.executable


def test_on_windows_the_hint_is_a_command_cmd_and_powershell_read_as_meant(monkeypatch):
    """The hint quoted its words as a POSIX shell does: in cmd.exe a single quote quotes nothing, and
    'textual<9,>=8' read its < as a redirection. Installed by pipx (a laptop's way), the hint is pipx's
    own, which any shell reads with no path to quote (PowerShell stopped at a quoted one)."""
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(sys, "prefix", r"C:/Users/Tina Smith/pipx/venvs/drnim-controller")
    hint = install_command("sim")
    assert hint.startswith("pipx inject drnim-controller ") and "'" not in hint
    for requirement in requirements("sim"):
        assert (' "%s"' % requirement if set(requirement) & set("<>,; ") else " " + requirement) in hint
    monkeypatch.setattr(sys, "prefix", r"C:/Users/Tina Smith/exhibit/.venv")
    monkeypatch.setattr(sys, "executable", r"C:\Users\Tina Smith\exhibit\.venv\Scripts\python.exe")
    assert install_command("sim").startswith(r'"C:\Users\Tina Smith\exhibit\.venv\Scripts\python.exe" -m pip '
                                             "install ")
