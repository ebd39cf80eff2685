/** `sluice create secret authcredentials` and `sluice create upstream kube`: print resources as YAML. */
import type { Command } from 'commander';
import { serialize } from '../emit/write.js';
import { DEFAULT_OPTIONS } from '../translate/output.js';
import { parseNamespace, parsePort, parseResourceName } from './options.js';

export function authCredentialsSecret(
  name: string,
  namespace: string,
  username: string,
  password: string,
): Record<string, unknown> {
  const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace },
    type: 'Opaque',
    data: { username: b64(username), password: b64(password) },
  };
}

export function kubeUpstream(
  name: string,
  namespace: string,
  service: string,
  serviceNamespace: string,
  port: number,
): Record<string, unknown> {
  return {
    apiVersion: 'gloo.gateway.example/v1',
    kind: 'Upstream',
    metadata: { name, namespace },
    spec: { kube: { serviceName: service, serviceNamespace, servicePort: port } },
  };
}

export function register(program: Command): void {
  const create = program
    .command('create')
    .description('print a resource as YAML, ready for `sluice validate` or a resource directory');
  const ns = DEFAULT_OPTIONS.controlPlaneNamespace;

  create
    .command('secret')
    .description('print a Secret')
    .command('authcredentials')
    .description('an authentication-credentials Secret for AuthConfig groupLookupSettings.credentialsSecretRef')
    .requiredOption('--name <name>', 'name of the Secret', parseResourceName)
    .option('-n, --namespace <ns>', 'namespace of the Secret', parseNamespace, ns)
    .requiredOption('--username <dn>', 'service account DN')
    .requiredOption('--password <password>', 'service account password')
    .action((flags) => {
      process.stdout.write(
        serialize(authCredentialsSecret(flags.name, flags.namespace, flags.username, flags.password), 'yaml'),
      );
    });

  create
    .command('upstream')
    .description('print an Upstream')
    .command('kube')
    .description('an Upstream for a cluster service')
    .requiredOption('--name <name>', 'name of the Upstream', parseResourceName)
    .option('-n, --namespace <ns>', 'namespace of the Upstream', parseNamespace, ns)
    .requiredOption('--kube-service <service>', 'name of the service', parseResourceName)
    .requiredOption('--kube-service-namespace <ns>', 'namespace of the service', parseNamespace)
    .requiredOption('--kube-service-port <port>', 'port of the service', parsePort)
    .action((flags) => {
      process.stdout.write(
        serialize(
          kubeUpstream(
            flags.name,
            flags.namespace,
            flags.kubeService,
            flags.kubeServiceNamespace,
            flags.kubeServicePort,
          ),
          'yaml',
        ),
      );
    });
}
