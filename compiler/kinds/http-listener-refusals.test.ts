import { lookupType } from '../../contract/envoy.js';
import { GLOO, type GlooSupport } from './gloo.js';
import { headerValidationSettings } from './http-listener-refusals.js';

// The refusal rests on the field's status in Envoy's API: when an API update settles it, build the option instead.
test("headerValidationSettings is refused because Envoy's API marks allow_custom_methods work in progress", () => {
  const field = lookupType('envoy.config.core.v3.Http1ProtocolOptions').fields.allow_custom_methods;
  expect(field?.options?.['(xds.annotations.v3.field_status).work_in_progress']).toBe(true);
  const support = (headerValidationSettings() as unknown as Record<string, GlooSupport>)[GLOO];
  expect(support).toMatchObject({ support: 'refused' });
  expect(support.note).toContain('allow_custom_methods');
});
