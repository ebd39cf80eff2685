/**
 * The example gRPC upstreams: users.UserService and products.ProductService
 * (examples/services/protos) with gRPC server reflection, which is how
 * sluice-graphql learns their message types (examples/graphql-grpc.yaml,
 * examples/graphql-stitched.yaml). One program serves either or both.
 *
 *   node dist/examples/services/grpc.js --service users --port 50051 [--host 0.0.0.0]
 */
import * as grpc from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';
import { announce, serviceArgs, stopOnSignals } from './args.js';
import type { RunningService } from './echo.js';
import { isMain } from './main.js';
import { loadProtos, serviceDefinition } from './protos.js';

export type ExampleService = 'users' | 'products';

/** users.User messages (proto field names). */
export const EXAMPLE_USERS = [
  { id: 1, username: 'ada', full_name: 'Ada Lovelace', user_id: 1001, role: 'ADMIN' },
  { id: 2, username: 'grace', full_name: 'Grace Hopper', user_id: 1002, role: 'SELLER' },
  { id: 3, username: 'alan', full_name: 'Alan Turing', user_id: 1003, role: 'BUYER' },
];

/** products.Product messages; each seller is a user above. */
export const EXAMPLE_PRODUCTS = [
  { id: 1, name: 'Analytical Engine', seller_id: 1, seller: { id: 1 }, price_cents: '150000' },
  { id: 2, name: 'Compiler', seller_id: 2, seller: { id: 2 }, price_cents: '4200' },
  { id: 3, name: 'Debugging Moth', seller_id: 2, seller: { id: 2 }, price_cents: '99' },
];

type Request = Record<string, unknown>;
type Answer = object | grpc.StatusObject;

const notFound = (what: string): grpc.StatusObject => ({
  code: grpc.status.NOT_FOUND,
  details: `${what} not found`,
  metadata: new grpc.Metadata(),
});

function listUsers({ role, ids }: Request) {
  const wanted = ids as number[];
  return EXAMPLE_USERS.filter(
    (u) => (role === 'ROLE_UNSPECIFIED' || u.role === role) && (wanted.length === 0 || wanted.includes(u.id)),
  );
}

const SERVICES: Record<ExampleService, { name: string; methods: Record<string, (request: Request) => Answer> }> = {
  users: {
    name: 'users.UserService',
    methods: {
      GetUser: ({ id }) => EXAMPLE_USERS.find((u) => u.id === id) ?? notFound(`user ${id}`),
      ListUsers: (request) => ({ users: listUsers(request) }),
      CountUsers: (request) => ({ count: listUsers(request).length }),
    },
  },
  products: {
    name: 'products.ProductService',
    methods: {
      GetProduct: ({ id }) => EXAMPLE_PRODUCTS.find((p) => p.id === id) ?? notFound(`product ${id}`),
      ListProducts: ({ seller_id: seller }) => ({
        products: EXAMPLE_PRODUCTS.filter((p) => !seller || p.seller_id === seller),
      }),
      TopProducts: ({ first }) => ({ products: EXAMPLE_PRODUCTS.slice(0, first as number) }),
    },
  },
};

const isStatus = (answer: Answer): answer is grpc.StatusObject => 'code' in answer && 'details' in answer;

export async function startGrpcServices(
  services: ExampleService[],
  port = 0,
  host = '127.0.0.1',
): Promise<RunningService> {
  const { pkg, grpcObject } = loadProtos();
  const server = new grpc.Server();
  for (const service of services) {
    const { name, methods } = SERVICES[service];
    const implementation: grpc.UntypedServiceImplementation = Object.fromEntries(
      Object.entries(methods).map(([method, handle]) => {
        const unary: grpc.handleUnaryCall<Request, object> = (call, callback) => {
          const answer = handle(call.request);
          if (isStatus(answer)) callback(answer);
          else callback(null, answer);
        };
        return [method, unary];
      }),
    );
    server.addService(serviceDefinition(grpcObject, name), implementation);
  }
  new ReflectionService(pkg).addToServer(server);
  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return {
    port: bound,
    close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
}

if (isMain(import.meta.url)) {
  const { port, host, values } = serviceArgs('grpc', { service: { default: 'users,products' } });
  const services = values.service!.split(',') as ExampleService[];
  const unknown = services.filter((s) => !(s in SERVICES));
  if (unknown.length) {
    console.error(`grpc: unknown --service ${unknown.join(', ')}: use users, products or users,products`);
    process.exit(2);
  }
  const running = await startGrpcServices(services, port, host);
  announce(services.join('+'), `grpc://${host}:${running.port}`);
  stopOnSignals(() => running.close());
}
