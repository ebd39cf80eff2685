/**
 * Kubernetes objects checked against the API's own schemas, as pinned in
 * kubernetes-models (generated from the Kubernetes OpenAPI documents) and
 * @kubernetes-models/cert-manager: each model's validate() checks types,
 * required fields, enums and formats; its TypeScript type, given the object
 * as a literal, refuses a field the API does not have (the API server's
 * "unknown field" under strict field validation, kubectl's default).
 */
import path from 'node:path';
import ts from 'typescript';

type Json = Record<string, unknown>;

/** The module of an object's model: `kubernetes-models/apps/v1/Deployment`, `kubernetes-models/v1/Service`, ... */
function modelModule(apiVersion: string, kind: string): string {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  if (group === 'cert-manager.io') return `@kubernetes-models/cert-manager/cert-manager.io/${version}/${kind}`;
  return `kubernetes-models/${group ? `${group}/${version}` : version}/${kind}`;
}

const describe = (doc: Json) => `${doc.kind} ${(doc.metadata as Json | undefined)?.name}`;

/** What the models' validate() says of each object: one line per object it refuses, or per kind it has no model of. */
export async function modelProblems(documents: Json[]): Promise<string[]> {
  const problems: string[] = [];
  for (const doc of documents) {
    const module = modelModule(String(doc.apiVersion), String(doc.kind));
    let Model: (new (data: Json) => { validate(): void }) | undefined;
    try {
      Model = (await import(module))[String(doc.kind)];
    } catch {
      Model = undefined;
    }
    if (!Model) {
      problems.push(`${describe(doc)}: no model of ${doc.apiVersion} ${doc.kind} (${module})`);
      continue;
    }
    try {
      new Model(doc).validate();
    } catch (err) {
      problems.push(`${describe(doc)}: ${(err as Error).message}`);
    }
  }
  return problems;
}

/**
 * Each object as a literal of its model's TypeScript type, type-checked in
 * memory: an unknown field anywhere is an excess-property error naming it.
 */
export function unknownFieldProblems(documents: Json[]): string[] {
  const root = process.cwd();
  const files = new Map(
    documents.map((doc, i) => {
      const module = modelModule(String(doc.apiVersion), String(doc.kind));
      const text = `import type { I${doc.kind} } from '${module}';\nexport const object: I${doc.kind} = ${JSON.stringify(doc, null, 1)};\n`;
      return [path.join(root, `.tmp/api-schema-check-${i}.ts`), { text, doc }];
    }),
  );
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => files.get(name)?.text ?? readFile(name);
  host.fileExists = (name) => files.has(name) || ts.sys.fileExists(name);
  host.getSourceFile = (name, language, onError) => {
    const file = files.get(name);
    return file ? ts.createSourceFile(name, file.text, language) : getSourceFile(name, language, onError);
  };
  const program = ts.createProgram([...files.keys()], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, ' ');
    const file = d.file ? files.get(d.file.fileName) : undefined;
    if (!file || d.start === undefined) return message;
    // The path of the field: the keys of the literal's lines above it, by indentation.
    const line = d.file!.getLineAndCharacterOfPosition(d.start).line;
    return `${describe(file.doc)}: ${fieldPath(file.text, line)}: ${message}`;
  });
}

/** The dotted path of the key on `line` of a `JSON.stringify(_, null, 1)` literal. */
function fieldPath(text: string, line: number): string {
  const lines = text.split('\n');
  const keys: string[] = [];
  let indent = Infinity;
  for (let i = line; i >= 2 && indent > 1; i--) {
    const m = /^( *)"([^"]+)":/.exec(lines[i]!);
    if (m && m[1]!.length < indent) {
      indent = m[1]!.length;
      keys.unshift(m[2]!);
    }
  }
  return keys.join('.');
}
