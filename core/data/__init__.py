"""The public tree and the private records: how a database is written, read and checked.

* `tree`: `PublicTree`, `kary_tree`, `prefix_tree` (a node is a tuple of child indices) and the
  size limits of a run;
* `records`: reading one record per line against a public tree;
* `datasets`: the embedded real dataset (the Unicode Character Database);
* `notation`: one notation for records and databases, in text and in JSON;
* `validate`: the checks of every input before any work (exact numbers, integer ranges, seeds,
  records against the public tree, bounded UTF-8 lines), `ParameterError` naming the parameter.

May import: the top-level plumbing (`betweencut.errors`, `betweencut.interop`) and
`betweencut.numbers`. Never the noise, the mechanism or anything above them.
"""
