"""Whether the Pi's own supply sags and how hot its CPU runs, as the kernel already says, for the
journal and `controller status`.

A cheap supply or a long thin cable sags when the Pi works hard, and the firmware then slows the
Pi; a deeper sag reboots it mid-game. In a closed box in the sun the CPU reaches the temperature
where the firmware slows it down too. Nothing of this shows on the exhibit, so the service reads:

- under-voltage: Raspberry Pi OS's raspberrypi-hwmon driver (the hwmon device named "rpi_volt",
  Pi 1 to 5) asks the firmware every 2 s whether the supply fell below its threshold (about
  4.65 V) at any moment since it last asked, and its in0_lcrit_alarm says 1 or 0 until it asks
  again. Read once a second, no sag is missed, however short (a release's pulse);
- heat: /sys/class/thermal/thermal_zone0/temp, the CPU's temperature in thousandths of a degree
  Celsius. The firmware slows the Arm cores from 80 °C, and the GPU too at 85 °C.

On a computer without rpi_volt (a laptop, CI) nothing is read, not even the temperature, whose
limits are the Pi's: `watch` finds nothing and the service sets no timer for it.
"""

import os

# The folder that holds the kernel's sys/ on the computer that runs the controller.
SYSTEM_ROOT = "/"
HWMON = os.path.join("sys", "class", "hwmon")
CPU_TEMPERATURE = os.path.join("sys", "class", "thermal", "thermal_zone0", "temp")
# How often both are read: at least once in each of the driver's 2 s answers.
READ_EVERY_MS = 1000
# An episode of under-voltage is over after this long without: a supply that sags at every release
# of a game is one episode, with one line in the journal when it starts and one when it ends.
CALM_MS = 60 * 1000
# The CPU is too hot from where the firmware starts to slow the Pi down, and cool again below COOL_C.
HOT_C = 80
COOL_C = 75
WHAT_TO_DO = 'docs/troubleshooting.md, "Under-voltage and heat"'


def watch(root):
    """A Watch of the Pi under `root` (the folder that holds the kernel's sys/, "/" on the Pi), or
    None where there is no rpi_volt to read (not a Raspberry Pi)."""
    folder = os.path.join(root, HWMON)
    try:
        devices = sorted(os.listdir(folder))
    except OSError:
        return None
    for device in devices:
        if read_text(os.path.join(folder, device, "name")) == "rpi_volt":
            return Watch(os.path.join(folder, device, "in0_lcrit_alarm"), os.path.join(root, CPU_TEMPERATURE))
    return None


def read_text(path):
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            return f.read().strip()
    except OSError:
        return None


def read_number(path):
    """The whole number a sysfs file holds, or None when it cannot be read (a reading that fails is
    no reading: the game goes on)."""
    text = read_text(path)
    try:
        return int(text)
    except (TypeError, ValueError):
        return None


def counted(count, thing):
    return "%d %s%s" % (count, thing, "" if count == 1 else "s")


def lasting(ms):
    seconds = max(0, ms) // 1000
    if seconds < 60:
        return "%d s" % seconds
    if seconds < 3600:
        return "%d min %d s" % divmod(seconds, 60)
    return "%d h %d min" % (seconds // 3600, seconds % 3600 // 60)


class Watch:
    """The supply's and the CPU's episodes since the service started, from a reading now and then."""

    def __init__(self, alarm, temperature):
        self.alarm = alarm
        self.temperature = temperature
        self.episodes = 0
        self.began = None       # when this episode of under-voltage began (ms), None between episodes
        self.last_sag = None    # when under-voltage was last read (ms)
        self.cpu_c = None
        self.hottest_c = None
        self.hot = False
        self.hot_episodes = 0

    def read(self, now):
        """Read both at `now` (ms, the service's clock): the lines for the journal, when an episode
        starts or ends."""
        said = []
        if read_number(self.alarm):
            if self.began is None:
                self.episodes += 1
                self.began = now
                said.append("under-voltage: the Pi's supply fell below about 4.65 V (the firmware's alarm): it "
                            "slows the Pi down, and a deeper sag reboots it or makes a release misfire; see %s"
                            % WHAT_TO_DO)
            self.last_sag = now
        elif self.began is not None and now - self.last_sag >= CALM_MS:
            seen = "once" if self.last_sag == self.began else "over %s" % lasting(self.last_sag - self.began)
            said.append("under-voltage over: none for a whole minute (seen %s; %s since the service started)"
                        % (seen, counted(self.episodes, "episode")))
            self.began = None
        millidegrees = read_number(self.temperature)
        if millidegrees is not None:
            self.cpu_c = millidegrees / 1000
            self.hottest_c = max(self.cpu_c, self.hottest_c if self.hottest_c is not None else self.cpu_c)
            if not self.hot and self.cpu_c >= HOT_C:
                self.hot = True
                self.hot_episodes += 1
                said.append("too hot: the CPU is at %.0f °C, where the firmware slows the Pi down (%d °C): shade "
                            "the box, give it air; see %s" % (self.cpu_c, HOT_C, WHAT_TO_DO))
            elif self.hot and self.cpu_c < COOL_C:
                self.hot = False
                said.append("cool again: the CPU is at %.0f °C (the hottest %.0f °C)" % (self.cpu_c, self.hottest_c))
        return said

    def status(self, now):
        """What the heartbeat's status.json holds of it, for `controller status` (`said`)."""
        return {"under_voltage": self.began is not None, "episodes": self.episodes,
                "last_sag_s": None if self.last_sag is None else (now - self.last_sag) / 1000,
                "cpu_c": self.cpu_c, "hottest_c": self.hottest_c, "hot": self.hot, "hot_episodes": self.hot_episodes}


def said(status, ago):
    """`controller status`'s lines of a heartbeat's "power", written `ago` seconds ago, each within an
    80-column terminal (an ssh window, the Pi's own console)."""
    if status["under_voltage"]:
        lines = ["Power: under-voltage now (episode %d since the service started): see" % status["episodes"],
                 "  %s." % WHAT_TO_DO]
    elif status["episodes"]:
        lines = ["Power: %s of under-voltage since the service started," % counted(status["episodes"], "episode"),
                 "  the last seen %s ago." % lasting(1000 * (status["last_sag_s"] + max(0, ago)))]
    else:
        lines = ["Power: no under-voltage since the service started."]
    if status["cpu_c"] is not None:
        if status["hot"]:
            lines.append("CPU: %.0f °C, too hot: the firmware slows the Pi down from %d °C; see" % (status["cpu_c"],
                                                                                                  HOT_C))
            lines.append("  %s." % WHAT_TO_DO)
        else:
            lines.append("CPU: %.0f °C (the hottest since the service started: %.0f °C%s)." % (
                status["cpu_c"], status["hottest_c"],
                "; too hot %s" % counted(status["hot_episodes"], "time") if status["hot_episodes"] else ""))
    return "".join(line + "\n" for line in lines)
