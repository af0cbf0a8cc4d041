"""The evaluator service: signed step-completion hooks in, one Answer out, over HTTP or AWS Lambda.

One module per job: settings (configuration), models (the request and its validation), problems (4xx bodies),
webhooks (Standard Webhooks verification), claims (one idempotency claim loop over store's claims), clients and
assume (reaching the learner's account and only it), metrics, records (what the service keeps of evaluations),
evaluator (the pipeline both front doors share), app (FastAPI), transport (uvicorn's protocol, answers sent at
once), serve (uvicorn for `stepeval serve`) and lambda_handler.
"""
