import { basic, envoyCheckRequest } from '../harness/extauth-check.js';
import { CHECK_REQUEST_VIEW_OF, checkRequestView, checkRequestViewRoot, messageType } from './protos.js';

interface FieldDescriptor {
  name: string;
  number: number;
  label: string;
  type: string;
}

interface MessageDescriptor {
  field: FieldDescriptor[];
  nestedType: (MessageDescriptor & { name: string })[];
}

/** A loaded message's descriptor; a nested one (Parent.Child) from its parent's. */
function descriptor(fullName: string): MessageDescriptor {
  try {
    return messageType(fullName).type as MessageDescriptor;
  } catch {
    const dot = fullName.lastIndexOf('.');
    return descriptor(fullName.slice(0, dot)).nestedType.find((n) => n.name === fullName.slice(dot + 1))!;
  }
}

test("the CheckRequest view reads each field by its number and kind in Envoy's protos", () => {
  const root = checkRequestViewRoot();
  for (const [view, envoyName] of Object.entries(CHECK_REQUEST_VIEW_OF)) {
    const envoy = new Map(descriptor(envoyName).field.map((f) => [f.name, f]));
    const fields = root.lookupType(view).fieldsArray;
    expect(fields.length).toBeGreaterThan(0);
    for (const field of fields) {
      // A map is a repeated entry message; a string a string; anything else one message.
      const kind = field.map
        ? ['LABEL_REPEATED', 'TYPE_MESSAGE']
        : field.type === 'string'
          ? ['LABEL_OPTIONAL', 'TYPE_STRING']
          : ['LABEL_OPTIONAL', 'TYPE_MESSAGE'];
      const theirs = envoy.get(field.name);
      expect({ view, field: field.name, number: field.id, kind }).toEqual({
        view,
        field: field.name,
        number: theirs?.number,
        kind: [theirs?.label, theirs?.type],
      });
    }
  }
});

test('a request Envoy sends decodes to the same values through the view as through the whole message', () => {
  const full = messageType('envoy.service.auth.v3.CheckRequest');
  const bytes = full.serialize(
    envoyCheckRequest('default.ldap', { authorization: basic('alice', 'pw'), ':path': '/pets?x=1', 'x-other': 'y' }),
  );
  const whole = full.deserialize(bytes) as {
    attributes: { request: { http: Record<string, unknown> }; context_extensions: Record<string, string> };
  };
  const viewed = checkRequestView()(bytes);
  const http = viewed.attributes!.request!.http!;
  expect({ ...http.headers }).toEqual(whole.attributes.request.http.headers);
  expect([http.method, http.path, http.host]).toEqual([
    whole.attributes.request.http.method,
    whole.attributes.request.http.path,
    whole.attributes.request.http.host,
  ]);
  expect({ ...viewed.attributes!.context_extensions }).toEqual({ config_ref: 'default.ldap' });
  // An empty request: no attributes at all, read as absent.
  expect(checkRequestView()(Buffer.alloc(0)).attributes ?? undefined).toBeUndefined();
});
