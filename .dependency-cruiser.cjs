// Layer rules (docs/architecture.md): dependencies point one way,
// api → domain → store → signing → lib; workflows import only types, the workflow contracts and the lib-like leaves (lib, signing); no cycles.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'Import cycles hide a missing layer; break them by moving the shared part down.',
      from: { path: '^src' },
      to: { circular: true },
    },
    {
      name: 'below-api-never-imports-api',
      severity: 'error',
      comment:
        'Only the api knows HTTP: domain, store, auth, workflows and activities never import it.',
      from: {
        path: '^src/(domain|store|auth|workflows|activities|lib|signing|observability|temporal|worker)',
      },
      to: { path: '^src/api' },
    },
    {
      name: 'store-below-domain',
      severity: 'error',
      comment:
        'Repositories serve the domain and never call back up into it; they may name the vocabularies that sit below them (domain schemas, auth families). They declare their own records: no workflow type reaches the store.',
      from: { path: '^src/store' },
      to: {
        path: '^src/(domain|auth|workflows|activities|observability|temporal|app)',
        pathNot: '^src/(domain/[^/]+/schemas[.]ts|auth/(families|auth-context)[.]ts)$',
      },
    },
    {
      name: 'schemas-are-leaves',
      severity: 'error',
      comment:
        'A domain vocabulary (schemas.ts) imports only lib and other vocabularies, so anything may name it.',
      from: { path: '^src/domain/[^/]+/schemas[.]ts$' },
      to: {
        path: '^src/',
        pathNot:
          '^src/(lib/|signing/|domain/[^/]+/schemas[.]ts$|auth/(families|auth-context)[.]ts$)',
      },
    },
    {
      name: 'lib-is-the-floor',
      severity: 'error',
      comment: 'src/lib is shared by every layer and depends on none of them.',
      from: { path: '^src/lib' },
      to: { path: '^src/(?!lib)' },
    },
    {
      name: 'signing-sits-on-lib',
      severity: 'error',
      comment:
        'src/signing (decision signatures, signed claims, approver challenges, ed25519) is cryptography any layer may use, workflows included: it depends on src/lib only.',
      from: { path: '^src/signing' },
      to: { path: '^src/(?!lib|signing)' },
    },
    {
      name: 'only-the-api-and-entry-points-know-the-composition-root',
      severity: 'error',
      comment:
        'src/app assembles everything; what it assembles declares what it needs (the domain: src/domain/infra.ts) and never imports the root.',
      from: {
        path: '^src/(domain|store|auth|workflows|activities|lib|observability|temporal|worker)',
      },
      to: { path: '^src/app' },
    },
    {
      name: 'api-reaches-the-store-through-the-domain',
      severity: 'error',
      comment:
        'Handlers call domain operations; repositories, their records and their errors stay below the domain.',
      from: { path: '^src/api' },
      to: { path: '^src/store' },
    },
    {
      name: 'workflows-import-types-only',
      severity: 'error',
      comment:
        'Workflow code runs in the deterministic sandbox: activities, store and domain code are imported as types only (the constants of each workflow contract live in its `<name>.contract.ts`, the task queues and search attributes in `shared.contract.ts`).',
      from: { path: '^src/workflows' },
      to: {
        path: '^src/(activities|store|app|observability|temporal|worker|auth|domain)',
        dependencyTypesNot: ['type-only'],
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(dist|node_modules)' },
  },
};
