"""A service left running for months: a problem that lasts is said once in the journal, not
at every heartbeat, and its end is said too."""

import json
import shutil

from service_rig import Rig


def test_a_status_file_that_cannot_be_written_is_said_once_and_its_end_too(tmp_path):
    """Found in a months audit: a runtime folder that could not be written (here a file in its
    place) wrote the same line into the journal at every heartbeat, 17,000 lines a day."""
    rig = Rig(tmp_path)
    rig.wait(100)
    published = []          # what the fleet hears at each heartbeat (after the status file, since the review)
    rig.service.publish_status = lambda: published.append("status-file" in rig.service.service_faults())
    shutil.rmtree(tmp_path / "run")
    (tmp_path / "run").write_text("a file where the folder was")
    before = len(rig.log)
    rig.wait(60 * 1000)                                   # twelve heartbeats
    assert published and all(published), published
    said = rig.log[before:]
    assert len(said) == 1 and said[0].startswith("fault: status-file: cannot write the status file in %s ("
                                                  % (tmp_path / "run")), said
    assert "status-file" in rig.service.service_faults()
    (tmp_path / "run").unlink()
    rig.wait(5 * 1000)                                    # the next heartbeat
    assert rig.log[before + 1:] == ["the status file is written again in %s" % (tmp_path / "run")]
    assert "status-file" not in rig.service.service_faults()
    # the first heartbeat written again does not say it cannot be written: --check said WARNING, status-file,
    # for one more heartbeat after the journal said it was over (found by the troubleshooting review)
    assert json.loads((tmp_path / "run" / "status.json").read_text())["service_faults"] == {}
    assert published[-1] is False
