"""Each language's words fit where they are shown: the bench simulator at 80x24, its buttons too. A
translation much longer than its English pushed the buttons after it out of their row (a translator's
"New game" of 53 letters hid Dr. Nim's trigger and the Nimatron's hand-over button under the working
panel), and no test said so: the ones that look at every language see the board and the keys only, and
the pseudo-locale's runs at 140x45."""

import asyncio
import gettext

import pytest

from controller.language import CODES, Language, language

pytest.importorskip("textual", reason="Textual (the sim extra) draws the simulator")

WIDTH, HEIGHT = 80, 24


def past_the_edge(machine, t):
    """What the simulator's first screen, in language `t` at 80x24, shows past the right edge of what holds
    it (where it is cut off, or drawn over the next panel): a line for each widget, naming it and its words."""
    from textual.widgets import Button
    from controller.sim.app import SimulatorApp
    from controller.sim.engine import Simulation
    sim = Simulation(machine, {})
    app = SimulatorApp(sim, speed=0, language=t)

    def words(widget):
        return str(widget.label if isinstance(widget, Button) else widget.render())[:40]

    def named(widget):
        return "the %s %r" % (widget.id or type(widget).__name__, words(widget))

    def after(widget):
        """What comes before `widget` in its row, each with its width: a translation that pushed it off is
        one of them, and only its English may be past the edge (a translator lengthened the other)."""
        siblings = [each for each in widget.parent.children if each.display and each.region.width]
        before = [each for each in siblings[:siblings.index(widget)] if words(each).strip()]
        return ", after %s" % ", ".join("%s (%d columns)" % (named(each), each.region.width) for each in before) \
            if before else ""

    async def look():
        async with app.run_test(size=(WIDTH, HEIGHT)) as pilot:
            await pilot.pause()
            return ["%s: %s runs to column %d, past the edge of what holds it at %d%s" % (
                t.code, named(widget), widget.region.right, widget.parent.region.right, after(widget))
                for widget in app.screen.query("*")
                if widget.display and widget.region.width and widget.region.right > widget.parent.region.right]
    try:
        return asyncio.run(look())
    finally:
        sim.close()


@pytest.mark.parametrize("machine", ["drnim", "nimatron"])
@pytest.mark.parametrize("code", CODES)
def test_every_language_fits_the_simulator_at_80x24(machine, code):
    past = past_the_edge(machine, language(code))
    assert past == [], "\n".join(["shorten these translations:"] + past)


class Long(gettext.NullTranslations):
    """A translator's "New game" that runs on."""

    def gettext(self, message):
        return "Nuova partita adesso subito, premi qui per cominciare" if message == "New game" else message


@pytest.mark.parametrize("machine, pushed", [("drnim", "trigger"), ("nimatron", "handover")])
def test_a_button_too_long_for_80_columns_is_named_with_what_it_pushes_off(machine, pushed):
    said = past_the_edge(machine, Language("it", Long()))
    assert said[0].startswith("it: the new_game 'Nuova partita adesso subito, premi qui p' runs to column 56, "
                              "past the edge of what holds it at ")
    assert [line for line in said if line.startswith("it: the %s " % pushed)]


class Longer(gettext.NullTranslations):
    """A "New game" that fits its row alone, but pushes the button after it off."""

    def gettext(self, message):
        return "Ricomincia una nuova partita da capo" if message == "New game" else message


def test_a_button_pushed_off_by_a_translation_names_the_translation_before_it():
    """Told "the trigger 'TRIGGER' runs to column 54", a translator shortened nothing they had written: the
    trigger's word was still the English, and the New game before it was what pushed it off."""
    said = past_the_edge("drnim", Language("it", Longer()))
    pushed, = [line for line in said if line.startswith("it: the trigger ")]
    assert ", after the new_game 'Ricomincia una nuova partita da capo' (" in pushed, said
