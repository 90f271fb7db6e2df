"""python -m experiments.serve's command line: safe defaults and clear refusals."""

import pytest

from experiments.serve.__main__ import parse_args


def test_the_defaults_bind_this_machine_only():
    args = parse_args([])
    assert (args.host, args.port, str(args.records), str(args.results), args.agents) == (
        "127.0.0.1",
        8000,
        "results",
        "results",
        [],
    )
    assert (args.max_games, args.max_idle, args.max_upload_kb, args.no_save) == (64, 7200.0, 1000, False)


BAD = [["--port", "70000"], ["--max-games", "0"], ["--max-idle", "0"], ["--max-upload-kb", "0"]]


@pytest.mark.parametrize("argv", BAD)
def test_bad_flags_are_usage_errors(argv, capsys):
    with pytest.raises(SystemExit) as stop:
        parse_args(argv)
    assert stop.value.code == 2
    assert "error:" in capsys.readouterr().err
