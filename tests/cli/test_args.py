"""`ember train`'s command line (ember/cli/_args.py): the parser's choices and one-line errors,
flag names, and check_values on every kind of bad setting (from the command line or from a
checkpoint's config)."""
import pytest

from ember.cli import DEFAULTS, UsageError, build_parser
from ember.cli._args import PeerFailed, check_values, flag


def _cfg(**changes):
    args = build_parser().parse_args(["train"])
    cfg = {key: getattr(args, key) if getattr(args, key) is not None else value
           for key, value in DEFAULTS.items()}
    cfg.update(changes)
    return cfg


def test_parser_reads_train_options():
    args = build_parser().parse_args(["train", "--model", "cnn", "--lr", "0.5",
                                      "--batch-size", "8", "--resume"])
    assert (args.command, args.model, args.lr, args.batch_size, args.resume) == \
        ("train", "cnn", 0.5, 8, True)
    assert build_parser().parse_args(["compat", "--write", "R.md"]).write == "R.md"


def test_parser_error_is_one_line_and_exit_2(capsys):
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args(["train", "--model", "rnn"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and len(err.strip().splitlines()) == 1
    assert err.startswith("ember train: error: argument --model: invalid choice: 'rnn'")


def test_flag_names():
    assert flag("batch_size") == "--batch-size" and flag("lr") == "--lr"


def test_defaults_pass_the_checks():
    assert check_values(_cfg()) is None


@pytest.mark.parametrize("changes, message", [
    ({"optimizer": "lamb"}, "--optimizer must be one of sgd, adam"),
    ({"lr": -1.0}, "--lr must be >= 0, got -1.0"),
    ({"momentum": "0.9"}, "--momentum must be a finite number, got '0.9'"),
    ({"epochs": 0}, "--epochs must be >= 1, got 0"),
    ({"epochs": 2.0}, "--epochs must be >= 1, got 2.0"),
    ({"seed": 2 ** 64}, "--seed must be < 2**64"),
    ({"val_fraction": 0.5, "test_fraction": 0.5}, "must be > 0 and sum to less than 1"),
    ({"val_fraction": 0.0}, "must be > 0 and sum to less than 1"),
    ({"data": 3}, "--data must be a string, got 3"),
    ({"target": "y"}, "--target needs --data FILE.csv"),
    ({"target": "y", "data": "x.txt"}, "--target needs --data FILE.csv"),
])
def test_check_values_names_the_bad_setting(changes, message):
    with pytest.raises(UsageError, match=None) as info:
        check_values(_cfg(**changes))
    assert message in str(info.value)


def test_peer_failure_is_a_usage_error():
    assert issubclass(PeerFailed, UsageError) and issubclass(UsageError, ValueError)
