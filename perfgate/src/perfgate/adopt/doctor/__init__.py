"""``perfgate doctor``: its checks of the project (`project`), a run of the quick
selection (`run`), the runner (`runner`) and GitHub (`github`), put together by `doctor`."""
