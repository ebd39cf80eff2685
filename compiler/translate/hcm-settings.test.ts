import { hcmMoreFields } from './hcm-settings.js';

test('nothing set: nothing added to the connection manager', () => {
  expect(hcmMoreFields({})).toEqual({ top: {}, common: {} });
});

test('the HTTP/1 settings share http_protocol_options; counts go to common_http_protocol_options', () => {
  expect(
    hcmMoreFields({
      enableTrailers: true,
      headerKeyFormat: 'preserveCase',
      maxHeadersCount: 10,
      maxRequestsPerConnection: 0,
    }),
  ).toEqual({
    top: {
      http_protocol_options: {
        enable_trailers: true,
        header_key_format: {
          stateful_formatter: {
            name: 'envoy.http.stateful_header_formatters.preserve_case',
            typed_config: {
              '@type':
                'type.googleapis.com/envoy.extensions.http.header_formatters.preserve_case.v3.PreserveCaseFormatterConfig',
            },
          },
        },
      },
    },
    common: { max_headers_count: 10, max_requests_per_connection: 0 },
  });
});

test('false is written (generate_request_id: false turns Envoy default off); an empty upgrade list writes none', () => {
  expect(
    hcmMoreFields({ generateRequestId: false, upgrades: [], internalAddressConfig: { cidrRanges: [] } }).top,
  ).toEqual({
    generate_request_id: false,
    internal_address_config: {},
  });
});
