"""Which parts of an AWS answer are secrets, and which request parameters ask for them, read from botocore's
models at any depth (structures, lists and maps alike).

Three rules and the explicit lists beside them:
- a member is a secret when its name says it holds a credential (`...Password`, `ClientSecret`,
  `SecretAccessKey`, `SessionToken`, `PreSharedKey`, `UserData`, ...) and it holds text (a string or a blob, not
  an enum such as a token's validity unit, nor a number, a flag or a date); in a bag of environment or stage
  variables (`Environment.Variables`, a container's `environment`, a stage's `variables`), every value but those
  known to be safe (`variable_entry`: `TABLE_NAME=items`, which labs check, a plain name's value of the shape
  the name says, an ARN, a number; not `CRED=...` nor `ADMIN_USER=admin:pw`);
- a member is a secret when its model documents it as a presigned URL (a Lambda function's code `Location`, an
  ECR layer's `downloadUrl`, a Snowball job's logs): whoever holds one reads or writes the object it signs;
- a request parameter asks for secrets when it is a flag named like `WithDecryption`, `includeValues`, `unmask`.
botocore's own `sensitive` trait is no rule here: AWS puts it on names, e-mail addresses, descriptions, state
machine definitions and KMS key ids as well (1,090 reads carry one), which labs need to read; the review over every
model (tests/core/test_readonly_review.py) prints the `sensitive` members no rule blanks, and the lists below hold
those of them that are secrets (a stream key, a VPN's configuration, a CHAP secret).

The gateway blanks what these name in the answers it relays (harness/sandbox/redact.py) and refuses requests that
ask for secrets; harness/core/readonly.py refuses the reads whose whole answer is a credential.
"""

from __future__ import annotations

import enum
import json
import re
import weakref
from collections.abc import Iterator

from botocore.model import ServiceModel, Shape

SECRET_NAME = re.compile(
    r"""(?:
        pass(?:word|wd|phrase|code)|passworddata
      | secret(?:string|binary|value|key)?|clientsecretvalue
      | (?:secret)?accesskey|privatekey|presharedkey|authkey|apikey|(?:app|apps|genapp|nwk|nwksenc|fnwksint|snwksint)key
      | mackey|streamkey|activationkey|activationcode
      | (?:access|auth|authorization|bearer|id|jwt|oauth|refresh|security|session|secret|webidentity|join|hec
          |grafana|registration|task|walletauth|device|voipdevice|issued)token
      | credentials?|seed|userdata
      | (?:pre)?signed(?:s3|log)?url|embedurl|stream(?:ingsession)?url
    )\Z""",
    re.VERBOSE,
)
EXACT_SECRET_NAMES = frozenset({"token", "pin"})
# A URL, URI, location or link its model documents as presigned (and not as "not presigned").
PRESIGNED_NAME = re.compile(r"(?:url|uri|location|link)\Z")
PRESIGNED_DOC = re.compile(r"(?<!not )\bpre-?signed\b[^.]*\b(?:url|uri)", re.IGNORECASE)
# Bags of environment or stage variables: every value is blanked but those known to be safe (`variable_entry`).
ENVIRONMENT_NAMES = frozenset(
    {"environment", "environmentvariables", "variables", "runtimeenvironmentvariables", "stagevariables"}
)
VALUE_NAMES = frozenset({"value"})  # in a bag given as a list of {name, value}: the member that may be a secret
NAME_NAMES = frozenset({"name", "key"})  # and the member that names it
# A bag's key that names a credential: free-form names (`GITHUB_TOKEN`, `DB_PWD`), read more broadly than members'.
SECRET_KEY = re.compile(
    r"pass(?:word|wd|phrase|code|key)|pwd|secret|token(?!iz)|apikey|accesskey|privatekey|credential|signingkey"
    r"|authorization|cookie|connectionstring|connstr|webhook|(?:stripe|client|license|ssh|encryption|hmac|master|api"
    r"|account|sharedaccess)key\Z|externalid"
)
# Short words that name a credential only as a word of their own (`DB_PASS`, `SMTP_PW`, `AUTH`; not `BYPASS`).
SECRET_WORDS = frozenset({"pass", "pw", "auth", "dsn", "pin", "cred", "creds", "salt", "pepper", "passwd", "pgpass"})
# ...or as the end of a name written as one word (`dbpass`, `PGPASS`, `MYSQL_PWD`, `dbcreds`, `HASHSALT`).
SECRET_END = re.compile(r"(?<!by)(?<!com)(?:pass|passwd|pwd|creds?|salt)\Z")
# A bag's key that names where a credential is kept, not the credential (`SECRET_ARN`, `API_KEY_SECRET_NAME`,
# `DB_PASSWORD_PARAM`; an external id is a shared secret, no reference), and a value that is an ARN: a reference.
REFERENCE_KEY = re.compile(r"(?:arn|name|(?<!external)id|path|param|parameter|parametername|ref)\Z")
ARN_VALUE = re.compile(r"arn:aws[a-z-]*:[a-z0-9-]+:[a-z0-9-]*:[0-9]{0,12}:\S+")
# In a bag of variables, a name that says its value is plain configuration (`TABLE_NAME`, `LOG_LEVEL`, `QUEUE_URL`,
# `DB_HOST`, `PORT`): kept, unless the value looks like a credential; any other name's value is blanked...
SAFE_VARIABLE = re.compile(
    r"(?:arn|name|names|id|ids|path|param|parameter|ref|region|table|bucket|queue|topic|stream|host|hostname|port"
    r"|stage|env|environment|level|mode|url|uri|endpoint|dir|file|timeout|ttl|size|count|limit|max|min|enabled"
    r"|disabled|version|lang|locale|tz|type|format|prefix|suffix|domain|cluster|service|function|role|account|user"
    r"|username|email|origin|origins|debug|home|class|handler|runtime|memory|concurrency|retries|interval|schedule)\Z"
)
# ...and only when the value has the shape its name says: a host a host's (lowercase labels, an IP address), a URL
# a URL's (no user or password: CREDENTIAL_VALUE), a file or a directory a path's, a schedule AWS's; any other name
# an identifier's (no space, `:` nor `=`: not `ADMIN_USER=admin:pw`).
IDENTIFIER = re.compile(r"[A-Za-z0-9_.,/@+*-]{1,512}")
LABEL = r"[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?"
HOST = rf"(?:{LABEL}(?:\.{LABEL})*|\[[0-9a-fA-F:.]+\])(?::[0-9]{{1,5}})?"
# a URL holds no comma: the list of them is read one way only (else `a://x,` repeated backtracks exponentially)
URL = r"[a-z][a-z0-9+.-]*://[^\s@,]{1,2000}"
VARIABLE_SHAPES = (
    (re.compile(r"(?:host|hostname|domain|cluster)\Z"), re.compile(f"{HOST}(?:,{HOST})*")),
    (re.compile(r"(?:url|uri|endpoint|origin|origins)\Z"), re.compile(rf"\*|(?:{URL}|{HOST})(?:,(?:{URL}|{HOST}))*")),
    (re.compile(r"(?:file|dir|path|home|prefix|suffix)\Z"), re.compile(r"[A-Za-z0-9_.,/@+~-]{1,1024}")),
    (re.compile(r"schedule\Z"), re.compile(r"(?:rate|cron|at)\([A-Za-z0-9 *?/,#LW:.-]{1,200}\)")),
)
# A resource's name a credential-named reference may hold (`SECRET_NAME=orders/db`, `DB_PASSWORD_PARAM=/app/db`,
# `SECRET_ID=orders-db`): a path, or lowercase words joined by dashes or underscores.
RESOURCE_NAME = re.compile(r"/?[A-Za-z0-9_.+=@-]{1,256}(?:/[A-Za-z0-9_.+=@-]{1,256})+|[a-z][a-z0-9]*(?:[-_][a-z0-9]+)+")
# ...but a value that cannot be a secret: an ARN, a number, a flag, nothing.
SAFE_VALUE = re.compile(
    r"arn:aws[a-z-]*:[a-z0-9-]+:[a-z0-9-]*:[0-9]{0,12}:\S+|-?[0-9]{1,6}(?:\.[0-9]+)?|(?i:true|false|yes|no|on|off)|"
)
# Values that are credentials whatever their name: AWS access keys, private keys, JWTs, well-known token formats.
# A JWT starts where a run of its alphabet does (else text of `eyJ` repeated is read again from each: quadratic).
CREDENTIAL_FORM = re.compile(
    r"(?:AKIA|ASIA)[A-Z0-9]{16}|-----BEGIN [A-Z ]*PRIVATE KEY-----"
    r"|(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\."
    # tokens by their vendors' prefixes (GitHub, GitLab, Slack, Stripe, Google, SendGrid, OpenAI, npm, PyPI, Shopify)
    r"|(?<![A-Za-z0-9])(?:(?:ghp|gho|ghs|ghu|ghr)_|github_pat_|glpat-|glptt-|xox[abposr]-|xapp-|(?:sk|rk|pk)_live_"
    r"|sk_test_|rk_test_|whsec_|AIza|sk-(?:proj-|ant-)?|npm_|pypi-|shpat_|shpss_|dop_v1_|AGE-SECRET-KEY-)"
    r"[A-Za-z0-9_-]{16,}"
    r"|(?<![A-Za-z0-9])SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"  # SendGrid
    r"|\Abase64:[A-Za-z0-9+/]{20,}={0,2}\Z"  # a framework's application key (Laravel's APP_KEY)
    r"|(?i:\bbearer\s+[A-Za-z0-9._~+/-]{4,}=*)"  # an HTTP Authorization header's token
    # an AWS secret access key: 40 characters of base64's alphabet standing alone, mixed case (not a SHA-1 in hex)
    r"|(?<![A-Za-z0-9/+=._-])(?=[A-Za-z0-9/+]{0,39}[a-z])(?=[A-Za-z0-9/+]{0,39}[A-Z])(?=[A-Za-z0-9/+]{0,39}[0-9/+])"
    r"[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=._-])"
)
# URLs that are credentials, each holding `://` (`credential_shaped` searches for them only in text that does): a URL
# carrying a password, with a user or none (postgres://app:pw@db/app, redis://:pw@cache:6379/0), a webhook's URL.
CREDENTIAL_URL = re.compile(
    r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]*:[^/\s@]+@"
    r"|https://(?:hooks\.slack\.com/(?:services|workflows|triggers)|(?:[\w-]+\.)?discord(?:app)?\.com/api/webhooks"
    r"|[\w.-]*webhook\.office\.com|outlook\.office\.com/webhook)/\S+"  # who holds a webhook's URL posts
)
# A credential-named parameter, each holding `=` (searched for only in text that does): in a URL's query, a connection
# string or `key=value` text (`?api_key=...`, JDBC's `&password=...`, a presigned URL's `sig=`, Azure's
# `AccountKey=`/`SharedAccessKey=`, `password=x` in a config).
CREDENTIAL_PARAMETER = re.compile(
    r"(?i:(?:pass(?:word|wd|phrase|code)|pwd|secret|token|api[_-]?key|access[_-]?key|account[_-]?key"
    r"|private[_-]?key|client[_-]?key|auth|sig|signature|credentials?)\s*=\s*[^\s&;,\"'<>]+)"
)
URL_HINT = "://"  # CREDENTIAL_URL matches no text without it...
PARAMETER_HINT = "="  # ...CREDENTIAL_PARAMETER and a connection string's password (`connection_password`) none
# All of them in one pattern: what `credential_shaped` finds, searched in parts (each alternative of one pattern is
# tried at every character of the text: the URLs' and parameters' were over half of a typical answer's blanking).
CREDENTIAL_VALUE = re.compile(f"{CREDENTIAL_FORM.pattern}|{CREDENTIAL_URL.pattern}|{CREDENTIAL_PARAMETER.pattern}")
# A CloudTrail event of a platform entering the account (an AssumeRole with an external id: the service's own, at the
# start of every evaluation): who entered, from where, is the platform's, not the learner's.
ENTRY_EVENT = re.compile(r"AssumeRole\w*")
ENTRY_CALLER = ("userIdentity", "sourceIPAddress", "userAgent", "tlsDetails", "vpcEndpointId", "recipientAccountId")
# Credentials in free text, read only where a hint of one is, a `:` or `-p`/`-P` (each alternative holds one; a plain
# substring test: this pattern's alternatives cost more than the test on text that holds none):
# - `name: value` in a log line or YAML (`password: x`, `DB_PASSWORD: x`, `MasterUserPassword: x`), the name ending
#   in a credential's word (not `tokenizer:`, `passenger:`) and not an ARN's resource type (`:secret:name`); not a
#   template's reference (`{{ x }}`, `!Ref x`, `${x}`);
# - a password on a command line: `mysql -p'x'`, `mysql -px`, `--password x`, `sshpass -p x`.
CREDENTIAL_TEXT = re.compile(
    r"(?i:(?<![:/])(?:pass(?:word|wd|phrase|code)|(?<![a-z])(?:pass|pw)|pwd|secret|token|api[_-]?key|access[_-]?key"
    r"|account[_-]?key|private[_-]?key|client[_-]?key|credentials?)[\"']?[ \t]*:[ \t]*[\"']?(?![{$!<%(\[])"
    r"[^\s\"'<>,;]{3})"
    r"|(?<![\w-])-p(?:'[^'\s]{1,200}'|\"[^\"\s]{1,200}\")"
    r"|(?i:(?<![\w-])--pass(?:word|wd)?[ \t]+[\"']?(?![-{$])[^\s\"']{3})"
    r"|(?i:\b(?:mysql\w*|sshpass)\b[^\n]{0,80}?[ \t]-p[ \t]?[^\s'\"-])"
)
# A connection string with its password (Server=db;User Id=app;Password=...): `connection_password`.
CONNECTION_SERVER = re.compile(r"(?i:(?:server|data source|host)=[^;]{1,200};)")
CONNECTION_PASSWORD = re.compile(r"(?i:(?:password|pwd)=[^;\s])")
CONNECTION_SPAN = 500
SCAN_WINDOW = 16 * 1024  # the most text one search of CREDENTIAL_VALUE reads (`credential_shaped`)...
SCAN_OVERLAP = 2 * 1024  # ...and what each window shares with the last: a credential across two is in one
JSON_PATH = ("$", "{%")  # a state machine's path or JSONata (`"TaskToken.$": "$$.Task.Token"`): no credential
MAX_JSON_TEXT = 1024 * 1024  # text read as JSON to find credential-named keys in it (a state machine's definition)


def looks_like_credential(text: str) -> bool:
    """Whether a text is a credential by its form, whatever holds it: an access key (its id or its 40-character
    secret), a private key, a JWT, a token of a known format, a URL carrying a password or a credential-named query
    parameter, `password=...` text, a bearer token, a webhook's URL, a connection string with its password or key,
    JSON text holding a credential-named key (`{"db_password": "..."}`), `password: x` text, a password on a command
    line (`CREDENTIAL_TEXT`)."""
    return credential_shaped(text) or json_holds_credential(text)


def platform_caller(document: dict[str, object]) -> tuple[str, ...]:
    """The keys of a CloudTrail event (a JSON object) that name who entered the account when the event is a platform
    entering it (`ENTRY_EVENT` with an `externalId` among its request's parameters): the service's principal, its
    account, its address, blanked beside the external id itself; none for any other object."""
    parameters = document.get("requestParameters")
    name = document.get("eventName")
    if not (isinstance(name, str) and ENTRY_EVENT.fullmatch(name) and isinstance(parameters, dict)):
        return ()
    if not any(str(key).lower() == "externalid" for key in parameters):
        return ()
    return tuple(key for key in ENTRY_CALLER if key in document)


def credential_shaped(text: str) -> bool:
    """Whether a credential's form is in `text` (CREDENTIAL_VALUE, a connection string's password, CREDENTIAL_TEXT),
    each part of them searched only where the text holds what every match of it holds (its hint). Text longer than
    SCAN_WINDOW is searched a window at a time (each overlapping the last by SCAN_OVERLAP): no one search holds the
    interpreter long, whatever the text."""
    if len(text) <= SCAN_WINDOW:
        if CREDENTIAL_FORM.search(text):
            return True
        if URL_HINT in text and CREDENTIAL_URL.search(text):
            return True
        if PARAMETER_HINT in text and (CREDENTIAL_PARAMETER.search(text) or connection_password(text)):
            return True
        return (":" in text or "-p" in text or "-P" in text) and bool(CREDENTIAL_TEXT.search(text))
    step = SCAN_WINDOW - SCAN_OVERLAP
    return any(credential_shaped(text[at : at + SCAN_WINDOW]) for at in range(0, len(text) - SCAN_OVERLAP, step))


def connection_password(text: str) -> bool:
    """Whether `text` holds a connection string with its password (`Server=db;User Id=app;Password=...`): a
    server's part, then within CONNECTION_SPAN characters of the same line a password's. Each part is found once
    (a pattern spanning both would read the span again from every `host=`: `host=a;` repeated costs 500 times its
    length)."""
    servers = CONNECTION_SERVER.finditer(text)
    server, latest = next(servers, None), -1
    for password in CONNECTION_PASSWORD.finditer(text):
        start = password.start()
        while server is not None and server.end() <= start:
            latest, server = server.end(), next(servers, None)
        if latest >= 0 and start - latest <= CONNECTION_SPAN and "\n" not in text[latest:start]:
            return True
    return False


def json_text(text: str) -> object | None:
    """`text` parsed as a JSON object or array, or None when it is none (or too long to read)."""
    stripped = text.strip()
    if len(stripped) > MAX_JSON_TEXT or not stripped.startswith(("{", "[")):
        return None
    try:
        document: object = json.loads(stripped)
    except (ValueError, RecursionError):
        return None
    return document


def json_holds_credential(text: str) -> bool:
    """Whether `text` is JSON with a credential in it: a value under a credential-named key, or credential-shaped
    text, at any depth (a Step Functions definition's `"password"`, an `"Authorization": "Bearer ..."`)."""
    document = json_text(text)
    if document is None:
        return False
    pending, seen = [document], 0
    while pending and seen < 100_000:
        value, seen = pending.pop(), seen + 1
        if isinstance(value, dict):
            for key, item in value.items():
                if isinstance(item, (str, int, float)) and not isinstance(item, bool) and document_entry(key, item):
                    return True
                pending.append(item)
        elif isinstance(value, list):
            pending.extend(value)
        elif isinstance(value, str) and looks_like_credential(value):
            return True
    return False


class Secret(enum.Enum):
    """How a member holds a secret: all its text (`WHOLE`, `LISTED`), or some of the values of a bag of variables or
    properties (`KEYED`: a map, or a list of {name, value}): those whose names say they hold a credential or which
    look like one (`DB_PASSWORD`, a connection's `PASSWORD`, an `AKIA...` key; not `TABLE_NAME`, nor a URL)."""

    WHOLE = "named like a credential"
    LISTED = "listed"
    KEYED = "secret entries"
    VARIABLES = "variables"  # a bag of environment or stage variables: `KEYED` by `variable_entry`


# Secrets no rule sees, as (structure, member) of each service's model, and how each holds them (`Secret`).
SECRET_MEMBERS: dict[str, dict[tuple[str, str], Secret]] = {
    "appsync": {("ApiKey", "id"): Secret.LISTED},  # an AppSync API key's id is the key itself
    "apigateway": {("ApiKey", "value"): Secret.LISTED},
    "cloudformation": {  # a template's text, for which GetTemplate is refused: literal secrets, NoEcho defaults
        ("StackSet", "TemplateBody"): Secret.LISTED,
        ("GetGeneratedTemplateOutput", "TemplateBody"): Secret.LISTED,
    },
    "ec2": {
        ("InstanceAttribute", "UserData"): Secret.LISTED,  # DescribeInstanceAttribute(userData)
        ("VpnConnection", "CustomerGatewayConfiguration"): Secret.LISTED,  # XML holding the tunnels' keys
        ("S3Storage", "UploadPolicySignature"): Secret.LISTED,  # signs an upload to the bundle's bucket
    },
    "evs": {("LicenseInfo", "solutionKey"): Secret.LISTED, ("LicenseInfo", "vsanKey"): Secret.LISTED},
    "glue": {  # PASSWORD, ENCRYPTED_PASSWORD, KAFKA_..._PASSWORD among a connection's settings, which stay
        ("Connection", "ConnectionProperties"): Secret.KEYED,
        ("Connection", "SparkProperties"): Secret.KEYED,
        ("Connection", "AthenaProperties"): Secret.KEYED,
        ("Connection", "PythonProperties"): Secret.KEYED,
        ("Job", "DefaultArguments"): Secret.KEYED,  # a job's arguments: `--db_password` beside `--TempDir`
        ("Job", "NonOverridableArguments"): Secret.KEYED,
        ("JobRun", "Arguments"): Secret.KEYED,
    },
    "iam": {("VirtualMFADevice", "QRCodePNG"): Secret.LISTED},  # the seed, as a picture
    "iot-managed-integrations": {
        ("GetManagedThingResponse", "DeviceSpecificKey"): Secret.LISTED,
        ("DiscoveredDeviceSummary", "AuthenticationMaterial"): Secret.LISTED,
    },
    "ivs": {("StreamKey", "value"): Secret.LISTED},  # who holds it may stream to the channel
    "quicksight": {("DescribeAssetBundleExportJobResponse", "DownloadUrl"): Secret.LISTED},  # presigned
    "lambda": {("LayerVersionContentOutput", "Location"): Secret.LISTED},  # presigned ("valid for 10 minutes")
    "kafkaconnect": {  # a connector's settings, among them its sources' and sinks' passwords
        ("DescribeConnectorResponse", "connectorConfiguration"): Secret.KEYED,
        ("DescribeConnectorOperationResponse", "originConnectorConfiguration"): Secret.KEYED,
        ("DescribeConnectorOperationResponse", "targetConnectorConfiguration"): Secret.KEYED,
    },
    "customer-profiles": {("GetUploadJobPathResponse", "ClientToken"): Secret.LISTED},  # a plaintext data key
    "storagegateway": {
        ("ChapInfo", "SecretToAuthenticateInitiator"): Secret.LISTED,
        ("ChapInfo", "SecretToAuthenticateTarget"): Secret.LISTED,
    },
}
# Members a rule would take for secrets that are not: role ARNs named "credentials".
NOT_SECRET_MEMBERS: dict[str, frozenset[tuple[str, str]]] = {
    "apigateway": frozenset({("Integration", "credentials"), ("Authorizer", "authorizerCredentials")}),
}

SECRET_PARAMETER = re.compile(
    r"(?:with)?decrypt(?:ion)?|(?:include|with|show|reveal)(?:secrets?|values?|passwords?|credentials?|plaintext"
    r"|sensitive\w*)|unmask",
    re.IGNORECASE,
)
# Parameters no rule sees, as (operation, member).
SECRET_PARAMETERS: dict[str, frozenset[tuple[str, str]]] = {}

MAX_PATHS = 8  # of one answer's secrets, what a review or a refusal names


def _names_credential(key: object) -> bool:
    """Whether a bag's key mentions a credential anywhere (`DB_PASSWORD`, `GITHUB_TOKEN`, `SECRET_PART1_ID`,
    `DB_PASS`, `PGPASS`; not `BYPASS` nor `PARTITION_KEY`)."""
    name = re.sub(r"[^a-z0-9]", "", str(key).lower())
    words = set(re.split(r"[^a-z0-9]+", str(key).lower()))
    return bool(SECRET_KEY.search(name) or SECRET_END.search(name) or words & SECRET_WORDS)


def _reference(key: object, value: str) -> bool:
    """Whether a credential-named entry is a reference to where a credential is kept: an ARN, whatever the name,
    or, under a name saying reference (`SECRET_NAME`, `DB_PASSWORD_PARAM`), a resource's name: a path
    (`/app/db/password`, `orders/db`) or a lowercase name with dashes (`orders-db-secret`); never a bare word
    (`SECRET_PART1_ID=xK9...`), which a credential can be."""
    if ARN_VALUE.fullmatch(value):
        return True
    name = re.sub(r"[^a-z0-9]", "", str(key).lower())
    return bool(REFERENCE_KEY.search(name) and RESOURCE_NAME.fullmatch(value))


def secret_entry(key: object, value: object) -> bool:
    """Whether an entry of a bag holds a credential: its value looks like one, or its key names one (`PASSWORD`,
    `STRIPE_API_KEY`, `GITHUB_TOKEN`, `KAFKA_CLIENT_KEY_PASSWORD`; not `TABLE_NAME` nor `JDBC_CONNECTION_URL`) and its
    value is no reference to where one is kept (`_reference`: `SECRET_ARN=arn:...`, `DB_PASSWORD_PARAMETER=/app/db`:
    how AWS teaches a function to find its secret, which labs check)."""
    if isinstance(value, str) and looks_like_credential(value):
        return True
    if not _names_credential(key):
        return False
    return not (isinstance(value, str) and _reference(key, value))


def document_entry(key: object, value: object) -> bool:
    """Whether an entry of a JSON document (a state machine's definition, a config file) holds a credential: as
    `secret_entry` says, but a state machine's path or JSONata (`"TaskToken.$": "$$.Task.Token"`) is none."""
    if isinstance(value, str) and value.startswith(JSON_PATH):
        return False
    return secret_entry(key, value)


def _plain_shape(key: object, value: str) -> bool:
    """Whether a value has the shape its plain-configuration name says (`VARIABLE_SHAPES`); a name of no listed
    kind takes an identifier's shape (`LOG_LEVEL=info`)."""
    name = re.sub(r"[^a-z0-9]", "", str(key).lower())
    for suffix, shape in VARIABLE_SHAPES:
        if suffix.search(name):
            return bool(shape.fullmatch(value))
    return bool(IDENTIFIER.fullmatch(value))


def variable_entry(key: object, value: object) -> bool:
    """Whether a value of a bag of environment or stage variables or of object metadata is blanked: every one but
    those known to be safe to read, whatever the name a credential hides under (`CRED`, `SALT`, `DJANGO_KEY`): a
    value that cannot be a secret (an ARN, a number, a flag, nothing), or one named as plain configuration
    (`TABLE_NAME=items`, `LOG_LEVEL`, `QUEUE_URL`; `SAFE_VARIABLE`) whose value has the shape its name says (a host a
    host's, a URL a URL's without credentials, a name an identifier's: not `DB_HOST=pw word`, `ADMIN_USER=admin:pw`),
    unless `secret_entry` says it is a credential."""
    if secret_entry(key, value):
        return True
    if not isinstance(value, str) or SAFE_VALUE.fullmatch(value.strip()):
        return False
    if not SAFE_VARIABLE.search(re.sub(r"[^a-z0-9]", "", str(key).lower())):
        return True
    return not _plain_shape(key, value)


def _textual(shape: Shape) -> bool:
    """Free text, directly or in a list or a map: what can hold a credential (an enum cannot)."""
    if shape.type_name in ("string", "blob"):
        return not getattr(shape, "enum", None)
    if shape.type_name == "list":
        return _textual(shape.member)
    if shape.type_name == "map":
        return _textual(shape.value)
    return False


def _presigned(structure: Shape, name: str) -> bool:
    """Whether the model documents `structure.name` as a presigned URL."""
    documentation = structure.members[name].documentation
    return isinstance(documentation, str) and bool(PRESIGNED_DOC.search(documentation))


def _bag_of_values(shape: Shape) -> bool:
    """A map of text, or a list of structures with a name and a textual value: variables as AWS gives them."""
    if shape.type_name == "map":
        return _textual(shape.value)
    if shape.type_name == "list" and shape.member.type_name == "structure":
        names = {n.lower(): m for n, m in shape.member.members.items()}
        return bool(NAME_NAMES & names.keys()) and any(_textual(names[v]) for v in VALUE_NAMES & names.keys())
    return False


def children(shape: Shape) -> Iterator[Shape]:
    """The shapes a value of `shape` holds."""
    if shape.type_name == "structure":
        yield from shape.members.values()
    elif shape.type_name == "list":
        yield shape.member
    elif shape.type_name == "map":
        yield shape.value


class ModelSecrets:
    """The secrets of one service's model: which members are secrets, which shapes hold one, what each read's
    answer holds. Computed lazily, kept as long as the model is (`secrets_of`)."""

    def __init__(self, model: ServiceModel) -> None:
        self.service = model.service_name
        self._model = weakref.ref(model)
        self._listed = SECRET_MEMBERS.get(self.service, {})
        self._not_secret = NOT_SECRET_MEMBERS.get(self.service, frozenset())
        self._holds: dict[str, bool] = {}
        self._outputs: dict[str, list[str]] = {}
        self._parameters: dict[str, list[tuple[str, Shape]]] = {}

    def derived(self) -> int:
        """How many answers it keeps (shapes, outputs, parameters): what reading the model's operations filled."""
        return len(self._holds) + len(self._outputs) + len(self._parameters)

    def member(self, structure: Shape, name: str) -> Secret | None:
        """Whether `structure.name` holds a secret, and how."""
        key = (structure.name, name)
        if key in self._not_secret:
            return None
        shape = structure.members[name]
        if key in self._listed:
            return self._listed[key]
        lowered = name.lower()
        if (SECRET_NAME.search(lowered) or lowered in EXACT_SECRET_NAMES) and _textual(shape):
            return Secret.WHOLE
        if lowered in ENVIRONMENT_NAMES and _bag_of_values(shape):
            return Secret.VARIABLES
        if PRESIGNED_NAME.search(lowered) and shape.type_name == "string" and _presigned(structure, name):
            return Secret.WHOLE
        return None

    def holds(self, shape: Shape | None) -> bool:
        """Whether a value of `shape` can hold a secret, at any depth (recursive shapes included)."""
        if shape is None:
            return False
        known = self._holds.get(shape.name)
        if known is not None:
            return known
        seen, pending, found = {shape.name}, [shape], False
        while pending and not found:
            current = pending.pop()
            if current.type_name == "structure" and any(self.member(current, n) for n in current.members):
                found = True
            for child in children(current):
                if child.name not in seen:
                    seen.add(child.name)
                    pending.append(child)
        if found:
            self._holds[shape.name] = True
        else:  # nothing below any shape seen holds one either
            self._holds.update(dict.fromkeys(seen, False))
        return found

    def in_output(self, operation: str) -> list[str]:
        """Where the answer of `operation` holds secrets (`Path.To[].Member`), the first MAX_PATHS of them."""
        found = self._outputs.get(operation)
        if found is None:
            found = self._outputs[operation] = self._output_paths(operation)
        return found

    def _output_paths(self, operation: str) -> list[str]:
        model = self._model()
        if model is None or operation not in model.operation_names:
            return []
        output = model.operation_model(operation).output_shape
        if not self.holds(output):
            return []
        found: list[str] = []
        self._paths(output, "", (), found)
        return found

    def _paths(self, shape: Shape, path: str, stack: tuple[str, ...], found: list[str]) -> None:
        if len(found) >= MAX_PATHS or shape.name in stack or not self.holds(shape):
            return
        stack = (*stack, shape.name)
        if shape.type_name == "structure":
            for name, member in shape.members.items():
                how = self.member(shape, name)
                if how is not None and len(found) < MAX_PATHS:
                    suffix = "{secret entries}" if how in (Secret.KEYED, Secret.VARIABLES) else ""
                    found.append(f"{path}.{name}".lstrip(".") + suffix)
                elif how is None:
                    self._paths(member, f"{path}.{name}", stack, found)
        elif shape.type_name == "list":
            self._paths(shape.member, f"{path}[]", stack, found)
        elif shape.type_name == "map":
            self._paths(shape.value, f"{path}{{}}", stack, found)

    def parameters(self, operation: str) -> list[tuple[str, Shape]]:
        """The input members of `operation` that ask for secrets: flags named for it, and the listed ones."""
        found = self._parameters.get(operation)
        if found is None:
            found = self._parameters[operation] = self._asking(operation)
        return found

    def _asking(self, operation: str) -> list[tuple[str, Shape]]:
        model = self._model()
        if model is None or operation not in model.operation_names:
            return []
        shape = model.operation_model(operation).input_shape
        if shape is None:
            return []
        listed = {member for op, member in SECRET_PARAMETERS.get(self.service, frozenset()) if op == operation}
        return [
            (name, member)
            for name, member in shape.members.items()
            if name in listed or (member.type_name == "boolean" and SECRET_PARAMETER.fullmatch(name))
        ]


_secrets: weakref.WeakKeyDictionary[ServiceModel, ModelSecrets] = weakref.WeakKeyDictionary()


def secrets_of(model: ServiceModel) -> ModelSecrets:
    """The ModelSecrets of `model`, made once and dropped with it."""
    found = _secrets.get(model)
    if found is None:
        found = _secrets[model] = ModelSecrets(model)
    return found


def textual_leaves(shape: Shape) -> bool:
    """Whether blanking a value of `shape` has text to blank (see harness/sandbox/redact.py)."""
    return _textual(shape) or (shape.type_name == "structure" and any(map(textual_leaves, shape.members.values())))
