"""Semantic segmentation (``task: segmentation``): every metric against a plain per-pixel reference.

The reference is scikit-learn over the pixels themselves: the gold and predicted class of every
scored pixel (``ignore_index`` left out), each pixel weighted by how many times its image is drawn
(``sample_weight`` = the per-pixel resample counts), which is the resampled data set's pooled
confusion matrix.  The per-image metrics are checked against a direct loop over images (scikit-learn
on each image's pixels, then the weighted mean over the drawn images).  The replicates are the
program's own (``evaluate``), on the documented resample stream, for the item bootstrap and for
images clustered by video (``bootstrap.cluster``).
"""

import dataclasses
import warnings

import numpy as np
import pytest
from _segmentation_data import draw_masks, predict

from leaderboard_ci.core.resampling import Resampling, counts_from_indices, replicate_indices
from leaderboard_ci.scoring.config import parse_config
from leaderboard_ci.scoring.evaluation import evaluate
from leaderboard_ci.tasks.protocol import GoldStandard
from leaderboard_ci.tasks.segmentation import task as segmentation
from leaderboard_ci.tasks.segmentation.counts import confusion_matrix

skm = pytest.importorskip("sklearn.metrics")

TOL = 1e-9
LABELS = ("background", "road", "car", "person", "sky", "rare")
K = len(LABELS)
IGNORE = 255
METRICS = [
    "miou",
    "dice",
    "pixel_accuracy",
    "mean_accuracy",
    "fwiou",
    "image_iou",
    "image_dice",
    {"name": "image_dice", "empty": "one"},
    {"name": "miou", "labels": ["car", "rare"]},
    {"name": "pixel_accuracy", "labels": ["road"]},
    {"name": "image_iou", "labels": ["person", "rare"]},
]


def make_data(seed=0, n=30, height=20, width=32, quality=0.75):
    rng = np.random.RandomState(seed)
    gold = draw_masks(rng, n, height, width, K, ignore_index=IGNORE, rare_class=5)
    pred = predict(rng, gold, K, quality, ignore_index=IGNORE)
    return gold, pred


def config(metrics=METRICS, n_resamples=3, seed=11, **extra):
    data = {
        "task": "segmentation",
        "labels": list(LABELS),
        "metric": metrics[0],
        "extra_metrics": list(metrics[1:]),
        "bootstrap": dict({"n_resamples": n_resamples, "seed": seed, "n_jobs": 1}, **extra.pop("bootstrap", {})),
    }
    data.update(extra)
    return parse_config(data)


def encoded(cfg, gold, systems, **fields):
    values, labels, coded = segmentation.encode_values(gold, systems, LABELS, cfg.task_settings)
    return GoldStandard(values=values, labels=labels, task="segmentation", settings=cfg.task_settings, **fields), coded


# ---------------------------------------------------------------------------
# The per-pixel reference (scikit-learn) and the per-image loop
# ---------------------------------------------------------------------------
def _pixels(gold, pred, weights, classes):
    """Every scored pixel of the drawn images, weighted by its image's draws: (y_true, y_pred, sample_weight)."""
    true, guess, weight = [], [], []
    for g, p, w in zip(gold, pred, weights):
        keep = (g != IGNORE) & (w > 0)
        true.append(g[keep].astype(np.int64))
        guess.append(p[keep].astype(np.int64))
        weight.append(np.full(int(keep.sum()), float(w)))
    true, guess, weight = np.concatenate(true), np.concatenate(guess), np.concatenate(weight)
    if classes is not None:  # pixel_accuracy over some classes: their gold pixels only
        chosen = np.isin(true, classes)
        return true[chosen], guess[chosen], weight[chosen]
    return true, guess, weight


def _present(true, guess, classes):
    """Whether each class has a gold or predicted pixel among the weighted ones (the classes a mean runs over)."""
    return np.array([np.any(true == c) or np.any(guess == c) for c in classes])


def reference_score(spec, gold, pred, weights, labels=LABELS):
    """The metric of the resampled data set, from scikit-learn on its pixels."""
    classes = list(range(len(labels))) if spec.labels is None else [labels.index(label) for label in spec.labels]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if spec.name in ("image_iou", "image_dice"):
            return reference_image_score(spec, gold, pred, weights, classes)
        if spec.name == "pixel_accuracy":
            true, guess, weight = _pixels(gold, pred, weights, None if spec.labels is None else classes)
            return skm.accuracy_score(true, guess, sample_weight=weight)
        true, guess, weight = _pixels(gold, pred, weights, None)
        if spec.name == "miou":
            iou = skm.jaccard_score(true, guess, labels=classes, average=None, sample_weight=weight, zero_division=0)
            return iou[_present(true, guess, classes)].mean()
        if spec.name == "dice":
            f1 = skm.f1_score(true, guess, labels=classes, average=None, sample_weight=weight, zero_division=np.nan)
            return np.nanmean(f1)
        if spec.name == "mean_accuracy":
            recall = skm.recall_score(
                true, guess, labels=classes, average=None, sample_weight=weight, zero_division=np.nan
            )
            return np.nanmean(recall)
        if spec.name == "fwiou":  # scikit-learn's weighted average weighs each class by its gold pixels
            return skm.jaccard_score(true, guess, labels=classes, average="weighted", sample_weight=weight)
    raise AssertionError(spec.name)


def reference_image_score(spec, gold, pred, weights, classes):
    """Mean over the drawn images (with their draws) of each image's mean over classes: a direct loop."""
    total, counted = 0.0, 0.0
    for i, w in enumerate(weights):
        values = _image_values(spec.name, spec.option("empty", "skip"), tuple(classes), gold, pred, i)
        if values:
            total += w * np.mean(values)
            counted += w
    return total / counted


_IMAGE_VALUES = {}


def _image_values(name, empty, classes, gold, pred, i):
    """One image's per-class values that its mean runs over (scikit-learn on its pixels; cached per image)."""
    key = (name, empty, classes, id(gold), id(pred), i)
    if key not in _IMAGE_VALUES:
        keep = gold[i] != IGNORE
        true, guess = gold[i][keep].astype(np.int64), pred[i][keep].astype(np.int64)
        score = skm.jaccard_score if name == "image_iou" else skm.f1_score
        per_class = score(true, guess, labels=list(classes), average=None, zero_division=0)
        present = _present(true, guess, classes)
        _IMAGE_VALUES[key] = list(per_class[present]) + ([1.0] * int((~present).sum()) if empty == "one" else [])
    return _IMAGE_VALUES[key]


def check_replicates(result, cfg, gold, pred, counts, labels=LABELS):
    _IMAGE_VALUES.clear()  # keyed by the lists' ids: valid for one system's check only
    ones = np.ones(len(gold))
    for score in result.scores:
        spec = score.metric
        assert abs(score.score - reference_score(spec, gold, pred, ones, labels)) <= TOL, score.key
        expected = [reference_score(spec, gold, pred, row, labels) for row in counts]
        np.testing.assert_allclose(score.replicates, expected, rtol=0, atol=TOL, err_msg=score.key)


def test_every_metric_equals_scikit_learn_on_the_pixels_of_each_resample():
    gold, pred = make_data()
    cfg = config()
    standard, coded = encoded(cfg, gold, {"s": pred})
    result = evaluate(cfg, standard, coded["s"])
    counts = counts_from_indices(replicate_indices(11, len(gold), 0, 3), len(gold))
    check_replicates(result, cfg, gold, pred, counts)
    assert {s.key for s in result.scores} >= {"miou_car_rare", "image_dice_empty_one", "pixel_accuracy_road"}


def test_images_resampled_by_video_equal_the_reference_on_the_cluster_draws():
    """bootstrap.cluster: whole videos are drawn; each image weighs its video's draws."""
    gold, pred = make_data(seed=3, n=36)
    videos = np.repeat(np.arange(9), 4)
    # the draws themselves (the small-cluster correction, on by default, rescales them: tests/test_cluster_*)
    cfg = config(metrics=["miou", "image_dice", "fwiou"], bootstrap={"cluster": "video", "cluster_correction": False})
    standard, coded = encoded(cfg, gold, {"s": pred}, clusters=videos)
    result = evaluate(cfg, standard, coded["s"])
    resampling = Resampling(len(gold), clusters=videos)
    counts = resampling.item_counts(resampling.unit_indices(11, 0, 3))
    assert not np.all(counts == counts[:, :1])  # images of a video share a count, videos differ
    check_replicates(result, cfg, gold, pred, counts)


def test_the_compact_counts_are_the_confusion_matrix():
    """(tp, gold, pred) per class are the diagonal and the sums of scikit-learn's confusion matrix."""
    gold, pred = make_data(seed=2, n=6)
    for g, p in zip(gold, pred):
        keep = g != IGNORE
        expected = skm.confusion_matrix(g[keep], p[keep], labels=list(range(K)))
        np.testing.assert_array_equal(confusion_matrix(g, p, K, IGNORE), expected)


def test_groups_of_images_score_within_the_group():
    gold, pred = make_data(seed=4, n=30)
    groups = np.arange(30) % 3
    cfg = config(metrics=["miou", "image_iou"], groups="city", n_resamples=3)
    standard, coded = encoded(cfg, gold, {"s": pred}, groups=groups, group_values=("a", "b", "c"))
    result = evaluate(cfg, standard, coded["s"])
    counts = counts_from_indices(replicate_indices(11, 30, 0, 3), 30)
    for score in result.scores:
        if score.group is None:
            continue
        mask = (groups == ("a", "b", "c").index(score.group)).astype(float)
        spec = score.metric
        assert abs(score.score - reference_score(spec, gold, pred, mask)) <= TOL
        expected = [reference_score(spec, gold, pred, row * mask) for row in counts]
        np.testing.assert_allclose(score.replicates, expected, rtol=0, atol=TOL)


def test_a_class_absent_from_a_resample_is_left_out_of_its_mean():
    """The rare class is in a few images only: replicates without it average over the other classes."""
    gold, pred = make_data(seed=7, n=40)
    rare_images = [i for i, g in enumerate(gold) if np.any(g == 5)]
    assert 0 < len(rare_images) < 10
    cfg = config(metrics=["miou", "mean_accuracy"], n_resamples=200)
    standard, coded = encoded(cfg, gold, {"s": pred})
    result = evaluate(cfg, standard, coded["s"])
    counts = counts_from_indices(replicate_indices(11, 40, 0, 200), 40)
    without = np.flatnonzero(counts[:, rare_images].sum(axis=1) == 0)
    assert without.size  # some replicates draw no image of the rare class in the gold
    for r in without[:3]:
        for score in result.scores:
            assert abs(score.replicates[r] - reference_score(score.metric, gold, pred, counts[r])) <= TOL


@pytest.mark.slow
def test_the_example_equals_scikit_learn_on_three_resamples_of_videos(tmp_path):
    """examples/segmentation, read by the program from its files: every metric of every sample, full and
    three resamples of whole videos, equals scikit-learn on the masks as Pillow and numpy read them."""
    import dataclasses
    import glob
    import os
    import zipfile

    from test_examples import PROGRAM, _folder, segmentation_masks

    from leaderboard_ci.scoring.config import load_config
    from leaderboard_ci.scoring.readers import read_gold, read_submission

    reference = os.path.join(_folder("segmentation"), "reference_data")
    cfg = load_config(PROGRAM, reference)
    cfg = dataclasses.replace(cfg, bootstrap=dataclasses.replace(cfg.bootstrap, n_resamples=3, n_jobs=1))
    standard = read_gold(reference, cfg)
    ids = list(standard.ids)
    gold_masks = segmentation_masks(os.path.join(reference, "masks"))
    gold = [gold_masks[i] for i in ids]
    resampling = standard.resampling()
    assert resampling.clustered and resampling.n_units == 20
    counts = resampling.item_counts(resampling.unit_indices(cfg.bootstrap.seed, 0, 3))
    paths = sorted(glob.glob(os.path.join(_folder("segmentation"), "sample_submissions", "*.zip")))
    assert len(paths) == 6
    for path in paths:
        masks = segmentation_masks(path)
        unzipped = str(tmp_path / os.path.basename(path)[:-4])
        with zipfile.ZipFile(path) as archive:
            archive.extractall(unzipped)
        coded = read_submission(unzipped, cfg, standard)
        result = evaluate(cfg, standard, coded)
        check_replicates(result, cfg, gold, [np.asarray(masks[i]) for i in ids], counts, tuple(cfg.labels))


def test_the_end_of_phase_equals_the_leaderboard_in_any_blocks():
    """analyze(): each system's replicates are the leaderboard's, bit for bit, in one block or blocks of one;
    a copy of a system is tied with it (p = 1, permutation test too); the per-class table and per-image values."""
    from leaderboard_ci.phase.analysis import Execution, analyze

    gold, good = make_data(seed=5, n=30)
    weak = predict(np.random.RandomState(9), gold, K, 0.5, ignore_index=IGNORE)
    cfg = config(metrics=["miou", "image_dice"], n_resamples=60)
    standard, coded = encoded(cfg, gold, {"good": good, "weak": weak})
    coded["copy"] = coded["good"].copy()
    analysis = dataclasses.replace(cfg.analysis, test="permutation", n_permutations=60)
    kwargs = dict(config=dataclasses.replace(cfg, analysis=analysis))
    one = analyze(standard, coded, execution=Execution(n_jobs=1), **kwargs)
    blocks = analyze(standard, coded, execution=Execution(n_jobs=1, block_size=1), **kwargs)
    for key, target in one.targets.items():
        assert target.replicates.tobytes() == blocks.targets[key].replicates.tobytes(), key
    leaderboard = evaluate(cfg, standard, coded["weak"])
    official = one.official
    row = list(official.systems["name"]).index("weak")  # rank order
    np.testing.assert_array_equal(official.replicates[:, row], leaderboard.scores[0].replicates)
    pairs = official.pairs
    tied = pairs[pairs[["a", "b"]].isin(["good", "copy"]).all(axis=1)]
    assert len(tied) == 1 and tied["p_value"].iloc[0] == 1.0 and tied["p_permutation"].iloc[0] == 1.0
    assert set(one.units["unit"]) == set(LABELS) and len(one.units) == 3 * K
    values = one.targets[[k for k in one.targets if "image_dice" in str(k)][0]].unit_values
    assert values is not None and len(values)


# ---------------------------------------------------------------------------
# Configuration
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "data, fragment",
    [
        ({"labels": None}, "needs labels"),
        ({"ignore_index": 2}, "ignore_index 2 is the index of class 'car'"),
        ({"ignore_index": -1}, "ignore_index must be an integer from 0 to 65535"),
        ({"extra_metrics": [{"name": "dice", "empty": "one"}]}, "dice takes no option 'empty' (it takes: labels)"),
        ({"extra_metrics": [{"name": "image_dice", "empty": "zero"}]}, "empty must be one of: skip, one"),
        ({"extra_metrics": [{"name": "miou", "labels": ["truck"]}]}, "'truck' is not one of"),
        ({"extra_metrics": ["iou_macro"]}, "unknown metric"),
    ],
)
def test_config_mistakes_say_what_is_allowed(data, fragment):
    from leaderboard_ci.scoring.errors import ConfigError

    base = {"task": "segmentation", "labels": list(LABELS), "metric": "miou"}
    base.update(data)
    if base["labels"] is None:
        del base["labels"]
    with pytest.raises(ConfigError) as info:
        parse_config(base)
    assert fragment in str(info.value)


def test_names_keys_and_titles():
    cfg = config(metrics=["mean_iou", "mDice", "aAcc", "mAcc", "frequency_weighted_iou", "per_image_dice"])
    assert [s.key for s in cfg.metrics] == ["miou", "dice", "pixel_accuracy", "mean_accuracy", "fwiou", "image_dice"]
    assert [s.title for s in cfg.metrics][-1] == "Dice per image"
    assert all(len(s.key) <= 20 and len(s.title) <= 36 for s in cfg.metrics)


def test_in_memory_masks_are_checked():
    gold, pred = make_data(n=3)
    with pytest.raises(ValueError, match="system 's' image 1 is"):
        segmentation.encode_values(gold, {"s": [pred[0], pred[1][:5], pred[2]]}, LABELS)
    bad = [p.copy() for p in pred]
    bad[2][0, 0] = 9
    with pytest.raises(ValueError, match="holds 9 at row 0, column 0"):
        segmentation.encode_values(gold, {"s": bad}, LABELS)
    with pytest.raises(ValueError, match="has 2 masks for 3 gold images"):
        segmentation.encode_values(gold, {"s": pred[:2]}, LABELS)
