"""The Runs / History view: past workflow runs and each run's full event log."""
