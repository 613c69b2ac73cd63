/** A page's browser code, bundled at build time by scripts/page-bundle.mjs. */
declare module '*.bundle' {
  const page: { script: string; css: string };
  export default page;
}
