"""What the watch tells people: an alert's text (`text`), one GitHub issue per regression
(`issues`), a plot of the history (`plot`) and the pull request a commit came from (`pulls`)."""
