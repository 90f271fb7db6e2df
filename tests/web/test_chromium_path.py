"""Which Chromium the browser tests drive (``experiments.serve.testing.chromium_path``)."""

import pytest

from experiments.serve import testing


def test_debians_chromium_comes_first_then_the_path_then_a_clear_error(tmp_path, monkeypatch):
    debian = tmp_path / "usr-bin-chromium"
    debian.write_text("#!/bin/sh\n")
    debian.chmod(0o755)
    other = tmp_path / "bin"
    other.mkdir()
    (other / "chromium").write_text("#!/bin/sh\n")
    (other / "chromium").chmod(0o755)
    monkeypatch.setattr(testing, "CHROMIUM", str(debian))
    monkeypatch.setenv("PATH", str(other))
    assert testing.chromium_path() == str(debian)
    monkeypatch.setattr(testing, "CHROMIUM", str(tmp_path / "missing"))
    assert testing.chromium_path() == str(other / "chromium")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(FileNotFoundError) as err:
        testing.chromium_path()
    assert str(err.value) == (
        f"no Chromium at {tmp_path / 'missing'} nor on the PATH: the browser tests and screenshots drive "
        "Debian's chromium (apt-get install chromium chromium-driver; .ci/run installs it when it is missing)"
    )
