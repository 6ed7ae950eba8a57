# SPDX-License-Identifier: BSD-3-Clause
"""The tables of the benchmark scripts that alternate libraries over rounds (run-crowd.sh,
run-startup.sh): their CSV, one row per run, grouped by some of its columns in the order
the groups first appear, and the median of a column over each group's runs."""
import csv


class Runs:
    def __init__(self, path, by):
        self.rows = list(csv.DictReader(open(path)))
        self.by = tuple(by)
        self.keys = []
        for r in self.rows:
            k = self.key(r)
            if k not in self.keys:
                self.keys.append(k)

    def key(self, row):
        return tuple(row[c] for c in self.by)

    def runs(self, key):
        """The rows of one group."""
        return [r for r in self.rows if self.key(r) == tuple(key)]

    def med(self, key, column, kind=float):
        """The median of @column over the group's runs (the upper one of an even count);
        NaN for a group without runs."""
        v = sorted(kind(r[column]) for r in self.runs(key))
        return v[len(v) // 2] if v else float("nan")
