import { formatDiagnostic, type Diagnostic } from '../diagnostics.js';
import { explainRefusedReferences } from './refused-references.js';

const refusedUpstream: Diagnostic = {
  stage: 'validate',
  file: 'a.yaml',
  line: 9,
  resource: 'Upstream rail/fares',
  field: 'spec.awsEc2',
  message: '"awsEc2" is not supported',
};
const reference = (line: number, name: string): Diagnostic => ({
  stage: 'resolve',
  file: 'b.yaml',
  line,
  resource: 'VirtualService rail/vs',
  field: 'spec.virtualHost.routes[0].routeAction.single.upstream',
  message: `Upstream rail/${name} not found`,
  hint: 'define it',
  reference: `Upstream rail/${name}`,
});

test('a reference to a refused resource says it was refused and where; a missing one stays "not found"; the marks go', () => {
  const out = explainRefusedReferences([reference(4, 'fares'), refusedUpstream, reference(7, 'timetable')]);
  expect(out.map(formatDiagnostic)).toEqual([
    'b.yaml:4: error[resolve]: VirtualService rail/vs: spec.virtualHost.routes[0].routeAction.single.upstream: Upstream rail/fares was refused: see the error above — fix Upstream rail/fares (a.yaml:9); this reference then finds it',
    'a.yaml:9: error[validate]: Upstream rail/fares: spec.awsEc2: "awsEc2" is not supported',
    'b.yaml:7: error[resolve]: VirtualService rail/vs: spec.virtualHost.routes[0].routeAction.single.upstream: Upstream rail/timetable not found — define it',
  ]);
  expect(out.every((d) => !('reference' in d))).toBe(true);
});

test("the refused resource's first error is the one pointed at, and a warning does not make a resource refused", () => {
  const later = { ...refusedUpstream, file: 'c.yaml', line: 3 };
  const second = { ...refusedUpstream, file: 'c.yaml', line: 5 };
  const warned: Diagnostic = { ...refusedUpstream, resource: 'Upstream rail/timetable', severity: 'warning' };
  const out = explainRefusedReferences([second, reference(4, 'fares'), later, warned, reference(7, 'timetable')]);
  expect(out[1]!.message).toBe('Upstream rail/fares was refused: see the error below');
  expect(out[1]!.hint).toBe('fix Upstream rail/fares (c.yaml:3); this reference then finds it');
  expect(out[4]!.message).toBe('Upstream rail/timetable not found');
});
