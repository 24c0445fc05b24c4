"""Peer of bench:label-quality: cleanlab's find_label_issues on the same data, in the same run.

Reads a JSON job {given: [int], knn_pred_probs: [[float]], embeddings_file, dim} and prints JSON
{knn: {issues, seconds}, logreg: {issues, seconds, top}}: the label issues cleanlab finds (default
filter_by) from our kNN out-of-sample probabilities, and from the out-of-sample probabilities of
a 5-fold cross-validated logistic regression on the same embeddings (cleanlab's usual workflow);
`top` is each item's 3 most probable classes other than its given label under the regression.
"""
import json
import sys
import time

import numpy as np
from cleanlab.filter import find_label_issues
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_predict

job = json.load(open(sys.argv[1]))
given = np.array(job["given"])
knn = np.array(job["knn_pred_probs"])
embeddings = np.fromfile(job["embeddings_file"], dtype=np.float32).reshape(len(given), job["dim"])

started = time.perf_counter()
knn_issues = find_label_issues(given, knn)
knn_seconds = time.perf_counter() - started

started = time.perf_counter()
logreg = cross_val_predict(LogisticRegression(max_iter=1000), embeddings, given, cv=5, method="predict_proba")
logreg_issues = find_label_issues(given, logreg)
logreg_seconds = time.perf_counter() - started

ranked = np.argsort(-logreg, axis=1, kind="stable")
logreg_top = [[int(c) for c in row if c != label][:3] for row, label in zip(ranked, given)]

print(json.dumps({
    "knn": {"issues": np.where(knn_issues)[0].tolist(), "seconds": knn_seconds},
    "logreg": {"issues": np.where(logreg_issues)[0].tolist(), "seconds": logreg_seconds, "top": logreg_top},
}))
