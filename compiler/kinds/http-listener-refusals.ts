/** Refusals of Gloo's HttpListenerOptions (and the route's forward proxy) whose reasons are more than a line. */
import { refused } from './gloo.js';

// Gloo's dynamic forward proxy, at the Gateway (its DNS cache and filter) and on a route (its destination).
export const dynamicForwardProxy = () =>
  refused(
    "Envoy's dynamic forward proxy sends each request to whichever host the request names (its Host header or a header it picks), resolved by DNS when the request arrives; Sluice sends requests only to upstreams its resources name",
    'use an Upstream with static hosts',
  );

// Gloo's only setting here becomes Envoy's http_protocol_options.allow_custom_methods (Gloo's hcm plugin).
export const headerValidationSettings = () =>
  refused(
    "disableHttp1MethodValidation is Envoy's http_protocol_options.allow_custom_methods, which Envoy's API marks work in progress (hidden, to be removed once Universal Header Validation replaces it), so Sluice does not build on it; HTTP/1 requests with a method outside Envoy's list are answered 400",
    'clients that send other methods can use HTTP/2, whose methods Envoy does not check',
  );
