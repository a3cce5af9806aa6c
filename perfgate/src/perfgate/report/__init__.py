"""The report: a decided verdict rendered (`render`, jinja2 `templates/`), its first screen
(`glance`), what each instrument could see (`visibility`) and the chart (`chart`,
`chart_layout`). Never decides."""
