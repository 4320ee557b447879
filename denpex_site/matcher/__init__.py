"""The log matcher: signatures to a diagnosis of training logs, the twin of static/js/matcher.js.

It imports nothing from the generator: ``dialect`` (patterns to safe regex), ``normalise`` (log
text rules), ``bundle`` (the signature file), ``engine`` (the compiled signature set),
``diagnosis`` (findings, ranking), ``report`` (the terminal report) and ``watch`` (follow a log).
"""
