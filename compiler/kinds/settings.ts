/**
 * Gloo's Settings (settings.proto): only the ext_authz servers a
 * VirtualService's or route's `customAuth` sends its checks to (`extauth`,
 * `namedExtauth`, each enterprise.gloo.solo.io `Settings` of extauth.proto),
 * and the global rate limits' server rules and filter settings (`ratelimit`,
 * `ratelimitServer`).
 * Every other field configures Gloo's control plane and is refused.
 */
import { Type, type Static } from '@sinclair/typebox';
import { note, refused, refuseEach } from './gloo.js';
import { rateLimitServerSettings, rateLimitServiceSettings } from './rate-limit-settings.js';
import { kind, resourceRef } from './resource.js';
import { atMostOne, boolean, mapOf, object, protoEnum, positiveDuration, singleLine, uint32 } from './schema.js';

const extauthServer = object(
  {
    extauthzServerRef: note(
      resourceRef,
      'an Upstream serving envoy.service.auth.v3.Authorization over gRPC (useHttp2: true); it becomes the cluster of its own ext_authz filter',
    ),
    grpcService: object({ authority: note(singleLine, 'the :authority of the Check calls') }),
    httpService: note(
      object({
        pathPrefix: note(singleLine, "put before the request's path in the check request (a trailing / is dropped)"),
        request: object({
          allowedHeaders: note(
            Type.Array(singleLine),
            'client headers copied into the check request, by name (any case); Host, Method, Path, Content-Length and Authorization always are',
          ),
          allowedHeadersRegex: note(
            Type.Array(singleLine),
            'client headers copied when their name matches the regex (RE2, checked at compile time)',
          ),
          headersToAdd: note(
            mapOf(singleLine),
            'headers set on every check request (a client header of that name is replaced)',
          ),
        }),
        response: object({
          allowedUpstreamHeaders: note(
            Type.Array(singleLine),
            "the server's answer headers of these names replace the request's before it goes upstream",
          ),
          allowedClientHeaders: note(
            Type.Array(singleLine),
            "the server's answer headers of these names reach the client on a denial (unset: all of them but Host)",
          ),
          allowedUpstreamHeadersToAppend: note(
            Type.Array(singleLine),
            "the server's answer headers of these names are appended to the request's before it goes upstream",
          ),
        }),
      }),
      "the server answers Envoy's plain HTTP check (the request's method and path, the chosen headers, no body) instead of gRPC: 2xx allows, anything else is the answer the client gets",
    ),
    userIdHeader: refused(
      "it names the header Gloo's own extauth server sets for the user; a team's server sets its own headers",
    ),
    requestTimeout: note(positiveDuration, 'default 200ms, as in Gloo'),
    failureModeAllow: note(boolean, 'the request goes on when the server cannot be reached or fails'),
    requestBody: object({
      maxRequestBytes: note(uint32, 'how much of the body Envoy buffers for the check'),
      allowPartialMessage: boolean,
      packAsBytes: boolean,
    }),
    clearRouteCache: boolean,
    statusOnError: note(
      Type.Integer({ minimum: 100, maximum: 599 }),
      "the status when the server fails (unreachable, timed out); unset: Envoy's 403",
    ),
    transportApiVersion: note(protoEnum(['V3']), 'V3, the only one'),
    statPrefix: singleLine,
  },
  ['extauthzServerRef'],
  atMostOne('grpcService', 'httpService'),
);

const controlPlane = () =>
  refused(
    "it configures Gloo's control plane, which has no counterpart in the resources Sluice compiles",
    "use sluice serve's flags (sluice serve --help)",
  );

const settingsSpec = object({
  extauth: note(
    extauthServer,
    "the server of a customAuth without a name (an AuthConfig's checks go to sluice-extauth, not to it)",
  ),
  ratelimit: rateLimitServiceSettings,
  ratelimitServer: rateLimitServerSettings,
  namedExtauth: note(
    mapOf(extauthServer, Type.String({ minLength: 1, maxLength: 63, pattern: '^[A-Za-z0-9_-]+$' })),
    'the server of a customAuth whose name is the key',
  ),
  ...refuseEach(
    [
      'discoveryNamespace',
      'watchNamespaces',
      'kubernetesConfigSource',
      'directoryConfigSource',
      'consulKvSource',
      'kubernetesSecretSource',
      'vaultSecretSource',
      'directorySecretSource',
      'secretOptions',
      'kubernetesArtifactSource',
      'directoryArtifactSource',
      'consulKvArtifactSource',
      'refreshRate',
      'devMode',
      'linkerd',
      'knative',
      'discovery',
      'gloo',
      'gateway',
      'consul',
      'consulDiscovery',
      'kubernetes',
      'extensions',
      'rbac',
      'cachingServer',
      'observabilityOptions',
      'upstreamOptions',
      'consoleOptions',
      'extProcEarly',
      'extProc',
      'extProcLate',
      'watchNamespaceSelectors',
      'ipV4Only',
    ],
    controlPlane,
  ),
});

export const SETTINGS = kind('gloo.gateway.example/v1', 'Settings', settingsSpec, 'gloo.solo.io/v1');

export type SettingsSpec = Static<typeof settingsSpec>;
export type ExtauthServerSpec = Static<typeof extauthServer>;
