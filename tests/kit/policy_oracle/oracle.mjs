// Reads a JSON array of cases on stdin, answers a JSON array of decisions on stdout (one process for the batch).
// A case: {policy, principal, action, resource, account, context}. The resource policy alone decides: an IAM principal
// is put in another account than the resource's, with an identity policy allowing everything, so the resource policy's
// Allow, Deny or silence is the answer (as for a service principal or an anonymous request, which have no identity).
import { anonymousPrincipal, runSimulation } from '@cloud-copilot/iam-simulate'

const ALLOW_ALL = { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] }

async function decide(c) {
  const anonymous = c.principal === '*'
  const simulation = {
    request: {
      principal: anonymous ? anonymousPrincipal : c.principal,
      action: c.action,
      resource: { resource: c.resource, accountId: c.account },
      contextVariables: c.context
    },
    identityPolicies: anonymous || !c.principal.startsWith('arn:') ? [] : [{ name: 'all', policy: ALLOW_ALL }],
    serviceControlPolicies: [],
    resourceControlPolicies: [],
    resourcePolicy: c.policy
  }
  try {
    const response = await runSimulation(simulation, {})
    if (response.resultType === 'error') return { error: JSON.stringify(response.errors) }
    return { result: response.overallResult }
  } catch (error) {
    return { error: String(error && error.stack ? error.stack : error) }
  }
}

let input = ''
process.stdin.setEncoding('utf8')
process.stdin.on('data', (chunk) => (input += chunk))
process.stdin.on('end', async () => {
  const answers = []
  for (const c of JSON.parse(input)) answers.push(await decide(c))
  process.stdout.write(JSON.stringify(answers))
})
