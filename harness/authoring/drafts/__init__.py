"""`stepeval new --from-solution`: a step's evaluation drafted from its reference solution.

drafting (the draft, played and rendered), probes (per kit Kind, the kit calls a described resource fits),
baselines (what AWS gives a resource the solution did not shape, made on moto), refs (values written as references).
"""
