// Shape of ConfigMap (core/v1): string data, base64 binaryData, immutable.
import { objectMeta, typeMeta } from "./meta.js";
import { bool, map, obj, str } from "./shape.js";

export const configMapShape = obj({ ...typeMeta, metadata: objectMeta, data: map(str()), binaryData: map(str()), immutable: bool });
