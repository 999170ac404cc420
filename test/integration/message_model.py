#!/usr/bin/python3
"""A model bundle with hand-written trees, so the messages users see can be asserted word for word on every
Slurm and XGBoost release: each tree splits on one feature and moves the margin by a fixed amount.

    message_model.py TRAINED_BUNDLE OUT_BUNDLE

Failure model (logistic, base margin 0):  first run (un_n < 0.5) +0.5;  un_streak >= 2.5 +2.0;
un_timeout_rate >= 0.5 +1.5;  un_oom_rate >= 0.5 +1.5.  p = 0.62, 0.88, 0.82, 0.82 for the cases alone.
Class model: FAILED unless un_timeout_rate >= 0.5 (TIMEOUT) or un_oom_rate >= 0.5 (OUT_OF_MEMORY).
The trained bundle gives the format and the feature schema; its trees and reference rows are dropped.
"""
import copy
import json
import sys


def stump(feature, cond, left, right, default_left=True):
    """One split: x[feature] < cond goes left. Leaf values sit in split_conditions and base_weights."""
    return {
        "left_children": [1, -1, -1], "right_children": [2, -1, -1], "parents": [2147483647, 0, 0],
        "split_indices": [feature, 0, 0], "split_conditions": [cond, left, right],
        "default_left": [1 if default_left else 0, 0, 0], "base_weights": [0.0, left, right],
        "split_type": [0, 0, 0], "loss_changes": [1.0, 0.0, 0.0], "sum_hessian": [2.0, 1.0, 1.0],
        "categories": [], "categories_nodes": [], "categories_segments": [], "categories_sizes": [],
        "id": 0, "tree_param": {"num_deleted": "0", "num_feature": "0", "num_nodes": "3", "size_leaf_vector": "1"},
    }


def leaf(value):
    return {
        "left_children": [-1], "right_children": [-1], "parents": [2147483647], "split_indices": [0],
        "split_conditions": [value], "default_left": [0], "base_weights": [value], "split_type": [0],
        "loss_changes": [0.0], "sum_hessian": [1.0], "categories": [], "categories_nodes": [],
        "categories_segments": [], "categories_sizes": [],
        "id": 0, "tree_param": {"num_deleted": "0", "num_feature": "0", "num_nodes": "1", "size_leaf_vector": "1"},
    }


def with_trees(model, trees, groups, objective, num_class):
    m = copy.deepcopy(model)
    learner = m["learner"]
    for i, t in enumerate(trees):
        t["id"] = i
        t["tree_param"]["num_feature"] = learner["learner_model_param"]["num_feature"]
    learner["gradient_booster"]["model"]["trees"] = trees
    learner["gradient_booster"]["model"]["tree_info"] = groups
    learner["gradient_booster"]["model"]["gbtree_model_param"]["num_trees"] = str(len(trees))
    learner["learner_model_param"]["num_class"] = str(num_class)
    learner["learner_model_param"]["base_score"] = "5E-1"
    learner["objective"] = {"name": objective}
    return m


def main():
    src, out = sys.argv[1], sys.argv[2]
    b = json.load(open(src))
    f = {n: i for i, n in enumerate(b["feature_schema"]["names"])}
    failure = [
        stump(f["un_n"], 0.5, 0.5, 0.0),
        stump(f["un_streak"], 2.5, 0.0, 2.0),
        stump(f["un_timeout_rate"], 0.5, 0.0, 1.5),
        stump(f["un_oom_rate"], 0.5, 0.0, 1.5),
    ]
    classes = [leaf(1.0), stump(f["un_timeout_rate"], 0.5, 0.0, 3.0), stump(f["un_oom_rate"], 0.5, 0.0, 3.0), leaf(0.0)]
    b["failure_model"] = with_trees(b["failure_model"], failure, [0] * len(failure), "binary:logistic", 0)
    b["class_model"] = with_trees(b["class_model"], classes, [0, 1, 2, 3], "multi:softprob", 4)
    b["reference_rows"] = []
    b["model_id"] = "handwritten-messages"
    b["threshold"] = 0.55
    json.dump(b, open(out, "w"))


if __name__ == "__main__":
    main()
