"""The evaluator service: signed step-completion hooks in, one Answer out, over HTTP or AWS Lambda.

One module per job: settings (configuration), models (the request and its validation), problems (4xx bodies),
webhooks (Standard Webhooks verification), idempotency (webhook-id -> stored answer), clients and assume
(reaching the sandbox account and only it), metrics, logs, evaluator (the pipeline both front doors share),
app (FastAPI), serve (uvicorn for `stepeval serve`) and lambda_handler.
"""
