/** `sluice serve` as the built binary in a child process (so a test can kill it), and inputs with an LDAP AuthConfig. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { groupDn, USER_DN_TEMPLATE } from '../../harness/slapd.js';
import { tempDir } from '../../harness/temp-dir.js';

/** The AuthConfig's name in xDS (and so the config_ref Envoy sends): namespace.name. */
export const CONFIG_REF = 'default.ldap';

/** A folder with a Service, an LDAP AuthConfig (developers may pass) and a VirtualService using it. */
export function authInputs(ldapUrl: string): string {
  const dir = tempDir('faults');
  writeFileSync(
    path.join(dir, 'resources.yaml'),
    `apiVersion: v1
kind: Service
metadata: {name: pets, namespace: default}
spec:
  ports: [{port: 8080}]
---
apiVersion: enterprise.gateway.example/v1
kind: AuthConfig
metadata: {name: ldap, namespace: default}
spec:
  configs:
    - ldap:
        address: ${ldapUrl}
        userDnTemplate: ${USER_DN_TEMPLATE}
        allowedGroups: ['${groupDn('developers')}']
---
apiVersion: gateway.gateway.example/v1
kind: VirtualService
metadata: {name: users, namespace: default}
spec:
  virtualHost:
    domains: [users.example.org]
    routes:
      - routeAction: {single: {kube: {ref: {name: pets, namespace: default}, port: 8080}}}
    options:
      extauth:
        configRef: {name: ldap, namespace: default}
`,
  );
  return dir;
}

export interface ServeProcess {
  child: ChildProcess;
  xdsPort: number;
  adminPort: number;
  /** Sends `signal` and waits for the process to exit. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

/** Starts `bin/sluice.js serve -f dir` and resolves once it logs the ports it listens on. */
export async function startServeProcess(dir: string, xdsPort = 0): Promise<ServeProcess> {
  const child = spawn(
    process.execPath,
    ['bin/sluice.js', 'serve', '-f', dir, '--xds-port', String(xdsPort), '--admin-port', '0'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = once(child, 'exit');
  let listening: { xds: string; admin: string } | undefined;
  for await (const line of createInterface({ input: child.stdout! })) {
    const log = JSON.parse(line);
    if (log.msg === 'sluice serve listening') {
      listening = log;
      break;
    }
  }
  if (!listening) throw new Error('sluice serve exited before listening');
  // Keep reading, so the child never blocks on a full pipe.
  child.stdout!.resume();
  return {
    child,
    xdsPort: Number(listening.xds.split(':').at(-1)),
    adminPort: Number(listening.admin.split(':').at(-1)),
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
