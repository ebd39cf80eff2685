/**
 * What resolve is told from outside the resources: the cluster's DNS domain
 * and the namespace of discovered Upstreams.
 */
export interface ResolveOptions {
  clusterDomain: string;
  controlPlaneNamespace: string;
}
