# stepeval as an AWS Lambda function: handler harness.service.lambda_handler.handler.
#   docker build -t stepeval-lambda --build-arg LAB=path/to/lab .
# The lab (specs/ and evaluation/) is baked into the image at /var/task/lab. Configuration: docs/service.md.
# Many labs in one function: an image FROM this one that copies them under /var/task/labs and sets
# STEPEVAL_LABS=/var/task/labs (docs/service.md, "AWS Lambda").
FROM public.ecr.aws/lambda/python:3.12

# libseccomp: the evaluation processes' seccomp filter is built by it (pyseccomp); without it the handler refuses
# to evaluate (the filter is in the sandbox's minimum set); unpinned, so that a rebuild takes security fixes
# hadolint ignore=DL3041
RUN dnf install -y libseccomp && dnf clean all

ARG LAB=.
COPY pyproject.toml README.md ${LAMBDA_TASK_ROOT}/src/
COPY harness ${LAMBDA_TASK_ROOT}/src/harness
# stepeval without extras: the handler imports no moto (the `authoring` extra is for a lab's authors and their CI)
RUN pip install --no-cache-dir "${LAMBDA_TASK_ROOT}/src" && rm -rf "${LAMBDA_TASK_ROOT}/src"
COPY ${LAB}/specs ${LAMBDA_TASK_ROOT}/lab/specs
COPY ${LAB}/evaluation ${LAMBDA_TASK_ROOT}/lab/evaluation

# One request at a time per execution environment: one worker process. STEPEVAL_WEBHOOK_SECRET comes from the
# function's configuration (ideally resolved from Secrets Manager at deploy time), never from the image.
ENV STEPEVAL_LAB=${LAMBDA_TASK_ROOT}/lab \
    STEPEVAL_WORKERS=1 \
    STEPEVAL_DEADLINE_S=60 \
    PYTHONDONTWRITEBYTECODE=1

CMD ["harness.service.lambda_handler.handler"]
