// Shapes shared by every kind: ObjectMeta, label maps, label selectors, object references.
import { checkLabelValue, checkQualifiedName } from "../names.js";
import { bool, int, list, map, obj, oneOf, opaqueList, str, type Shape } from "./shape.js";

/** apiVersion and kind, present in every object. */
export const typeMeta = { apiVersion: str(), kind: str() };

export const labelMap: Shape = map(str(checkLabelValue), checkQualifiedName);
export const annotationMap: Shape = map(str(), checkQualifiedName);
export const stringList: Shape = list(str());

export const ownerReference = obj(
  {
    apiVersion: str(),
    kind: str(),
    name: str(),
    uid: str(),
    controller: bool,
    blockOwnerDeletion: bool,
  },
  ["apiVersion", "kind", "name", "uid"],
);

export const objectMeta = obj({
  name: str(),
  generateName: str(),
  namespace: str(),
  labels: labelMap,
  annotations: annotationMap,
  uid: str(),
  resourceVersion: str(),
  generation: int(),
  creationTimestamp: str(),
  deletionTimestamp: str(),
  deletionGracePeriodSeconds: int(),
  ownerReferences: list(ownerReference),
  finalizers: stringList,
  managedFields: opaqueList,
  selfLink: str(),
});

export const labelSelectorRequirement = obj(
  { key: str(checkQualifiedName), operator: oneOf("In", "NotIn", "Exists", "DoesNotExist"), values: stringList },
  ["key", "operator"],
);

export const labelSelector = obj({
  matchLabels: labelMap,
  matchExpressions: list(labelSelectorRequirement),
});

export const objectReference = obj({
  apiVersion: str(),
  kind: str(),
  name: str(),
  namespace: str(),
  uid: str(),
  resourceVersion: str(),
  fieldPath: str(),
});
