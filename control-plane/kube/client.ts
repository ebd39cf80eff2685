/**
 * The connection to the API server: @kubernetes/client-node's KubeConfig
 * (in-cluster service account, `--kubeconfig`, or KUBECONFIG/~/.kube/config)
 * with its TLS and credentials, and a list request read as the API server's
 * JSON. client-node's typed list methods turn objects into its model classes
 * (dropping fields they do not know, dates as Date); a watch delivers JSON,
 * so lists are read as JSON too and both give the compiler the same shape.
 */
import http from 'node:http';
import https from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';

export interface KubeConnection {
  config: KubeConfig;
  server: string;
}

/** In-cluster config in a pod (KUBERNETES_SERVICE_HOST set), else the kubeconfig file given or found. */
export function connect(kubeconfig?: string): KubeConnection {
  const config = new KubeConfig();
  if (kubeconfig) config.loadFromFile(kubeconfig);
  else if (process.env.KUBERNETES_SERVICE_HOST && !process.env.KUBECONFIG) config.loadFromCluster();
  else config.loadFromDefault();
  const cluster = config.getCurrentCluster();
  if (!cluster) throw new Error('no current cluster in the Kubernetes config (set its current-context)');
  return { config, server: cluster.server.replace(/\/+$/, '') };
}

/** An answer of the API server other than 2xx: its status code and Status object. */
export class ApiFailure extends Error {
  constructor(
    readonly statusCode: number,
    readonly status: { reason?: string; message?: string } | undefined,
  ) {
    super(`${statusCode}${status?.reason ? ` ${status.reason}` : ''}: ${status?.message ?? 'no message'}`);
  }
}

export interface ObjectList {
  metadata?: { resourceVersion?: string; continue?: string };
  items?: Record<string, unknown>[];
}

/** GET `path` with `query`, as JSON. */
export async function getJson(
  connection: KubeConnection,
  path: string,
  query: Record<string, string>,
): Promise<ObjectList> {
  const options: https.RequestOptions = {};
  await connection.config.applyToHTTPSOptions(options);
  const url = new URL(connection.server + path);
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = transport.request(
      url,
      { ...options, method: 'GET', headers: { ...options.headers, accept: 'application/json' } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
          const status = response.statusCode ?? 0;
          if (status >= 200 && status < 300 && body) resolve(body as ObjectList);
          else reject(new ApiFailure(status, body as ApiFailure['status']));
        });
      },
    );
    request.on('error', reject);
    request.end();
  });
}
