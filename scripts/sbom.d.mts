// Types of scripts/sbom.mjs, for the tests that import it.
export interface Component {
  'bom-ref': string;
  type: string;
  group?: string;
  name: string;
  version: string;
  purl?: string;
  licenses?: Array<{ license?: { id?: string; name?: string }; expression?: string }>;
  properties?: Array<{ name: string; value: string }>;
}
export interface Bom {
  metadata: { component: Component };
  components: Component[];
  dependencies: Array<{ ref: string; dependsOn?: string[] }>;
}
export function bundledIds(noticesText: string): Set<string>;
export function keepBundled(bom: Bom, keep: Set<string>): Bom;
export function releaseSbom(nodeVersion?: string): Bom;
