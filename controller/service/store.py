"""The saved game, crash-safe.

Written after every change with write, flush, fsync and an atomic rename
(then an fsync of the folder, so the rename itself survives a power cut): a
reader finds either the old file or the new one, never half of one.
"""

import json
import os


class StateStore:
    def __init__(self, folder, name="game.json"):
        self.folder = folder
        self.path = os.path.join(folder, name)

    def save(self, data):
        os.makedirs(self.folder, exist_ok=True)
        temporary = self.path + ".new"
        with open(temporary, "w") as f:
            json.dump(data, f, sort_keys=True)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, self.path)
        folder = os.open(self.folder, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)

    def load(self):
        """The saved data, or None when there is none. An unreadable file is
        kept aside as .bad (for a look later) and None is returned."""
        try:
            with open(self.path) as f:
                return json.load(f)
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            os.replace(self.path, self.path + ".bad")
            return None
