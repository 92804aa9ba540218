"""Helpers both benchmarks need beyond judging: bootstrap intervals, markdown tables,
card rendering, atomic output folders and Hub publishing. One home for each."""
