/**
 * A hybrid Gateway's delegated gateways (gateway.proto's DelegatedHttpGateway
 * and DelegatedTcpGateway): the MatchableHttpGateways and MatchableTcpGateways
 * it takes its filter chains from, by reference or by label selector, and the
 * connection manager settings and TLS it hands down to the HTTP ones
 * (resolve/delegated-gateways.ts).
 */
import type { TSchema } from '@sinclair/typebox';
import { note } from './gloo.js';
import { resourceRef } from './resource.js';
import { gatewaySelector } from './label-selectors.js';
import { atMostOne, boolean, object } from './schema.js';
import { sniSslConfig } from './tls.js';

const selection = { ref: note(resourceRef, "namespace defaults to the Gateway's"), selector: gatewaySelector };

/** The hybridGateway fields naming delegated gateways; `hcmSettings` is the Gateway's httpConnectionManagerSettings schema. */
export function delegatedGatewayFields<H extends TSchema>(hcmSettings: H) {
  return {
    delegatedHttpGateways: note(
      object(
        {
          ...selection,
          preventChildOverrides: note(
            boolean,
            "true: a setting of httpConnectionManagerSettings or sslConfig written here wins over the MatchableHttpGateway's; false (default): the MatchableHttpGateway's wins, and these fill in what it leaves unset",
          ),
          httpConnectionManagerSettings: note(
            hcmSettings,
            "merged into each selected MatchableHttpGateway's options.httpConnectionManagerSettings, field by field",
          ),
          sslConfig: note(
            sniSslConfig("a Secret of the Gateway's namespace unless namespace is given"),
            "merged into each selected MatchableHttpGateway's matcher.sslConfig, field by field; with it, only MatchableHttpGateways with a matcher.sslConfig are selected, without it only those without (Gloo's rule)",
          ),
        },
        [],
        atMostOne('ref', 'selector'),
      ),
      'MatchableHttpGateway resources, each a filter chain of this listener as a matched httpGateway would be; ref or selector (neither: every one, as in Gloo)',
    ),
    delegatedTcpGateways: note(
      object(selection, [], atMostOne('ref', 'selector')),
      'MatchableTcpGateway resources, each as a matched tcpGateway would be; ref or selector (neither: every one, as in Gloo)',
    ),
  };
}
