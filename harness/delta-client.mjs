// A delta ADS client in its own process, so that a test can stop it with
// SIGSTOP (it then neither reads nor answers) and resume it with SIGCONT.
// Subscribes to CDS, EDS (the names given), LDS and RDS (http-8080), ACKs
// every response (unless SLUICE_NO_ACK=1: it reads and answers HTTP/2 pings
// but never ACKs), and prints one JSON line per response:
// {type, nonce, version, names, removed}.
// Usage: node delta-client.mjs PORT NODE_ID EDS_NAME...
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { INCLUDE_DIRS } from '../dist/contract/envoy.js';

const [port, node, ...edsNames] = process.argv.slice(2);
const definition = protoLoader.loadSync('envoy/service/discovery/v3/ads.proto', {
  includeDirs: [...INCLUDE_DIRS],
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  arrays: true,
});
const Ads = grpc.loadPackageDefinition(definition).envoy.service.discovery.v3.AggregatedDiscoveryService;
const client = new Ads(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
const stream = client.DeltaAggregatedResources();
const request = (fields) => stream.write({ node: { id: node, cluster: 'faults' }, ...fields });
const T = (name) => `type.googleapis.com/envoy.config.${name}`;
request({ type_url: T('cluster.v3.Cluster') });
request({ type_url: T('endpoint.v3.ClusterLoadAssignment'), resource_names_subscribe: edsNames });
request({ type_url: T('listener.v3.Listener') });
request({ type_url: T('route.v3.RouteConfiguration'), resource_names_subscribe: ['http-8080'] });
stream.on('data', (r) => {
  process.stdout.write(
    `${JSON.stringify({ type: r.type_url, nonce: r.nonce, version: r.system_version_info, names: r.resources.map((x) => x.name), removed: r.removed_resources })}\n`,
  );
  if (process.env.SLUICE_NO_ACK !== '1') request({ type_url: r.type_url, response_nonce: r.nonce });
});
stream.on('error', () => process.exit(0));
