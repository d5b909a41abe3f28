"""Each built-in game's section of `playlab report`, named by its registration
(``report="reports.sections.moon:section"``)."""
