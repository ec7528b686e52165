import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { marshallOptions } from '@aws-sdk/util-dynamodb';
import { convertToAttr } from '@aws-sdk/util-dynamodb';
import { defineOwn } from '../domain/properties';

/**
 * Items in DynamoDB's attribute-value form for the low-level client, exactly as the document client
 * marshals them (`@aws-sdk/util-dynamodb`'s `marshall` with the options in client.ts): undefined
 * members and functions left out, safe numbers as `N`, strings, booleans, null, byte arrays, lists and
 * plain objects converted here, everything else (sets, maps, bigints, boxed values, other binary types)
 * handed to util-dynamodb's own `convertToAttr`, which also throws for what it refuses (NaN, unsafe
 * numbers, class instances). The fast path is a switch on the value's type instead of util-dynamodb's
 * chain of constructor-name comparisons per value.
 */

export type AttributeMap = Record<string, AttributeValue>;

/** The document client's options (client.ts), for the values handed to util-dynamodb. */
export const documentMarshalling: marshallOptions = {
  removeUndefinedValues: true,
  convertClassInstanceToMap: false,
};

function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value) as object | null;
  return prototype === Object.prototype || prototype === null;
}

function attributeOf(value: unknown): AttributeValue {
  switch (typeof value) {
    case 'string':
      return { S: value };
    case 'boolean':
      return { BOOL: value };
    case 'number':
      if (value >= Number.MIN_SAFE_INTEGER && value <= Number.MAX_SAFE_INTEGER) return { N: String(value) };
      break;
    case 'object':
      if (value === null) return { NULL: true };
      if (Array.isArray(value)) {
        const list: AttributeValue[] = [];
        for (const element of value as unknown[])
          if (element !== undefined && typeof element !== 'function') list.push(attributeOf(element));
        return { L: list };
      }
      if (value.constructor === Uint8Array || Buffer.isBuffer(value)) return { B: value };
      // util-dynamodb tells a plain object by its constructor's name, which an own `constructor` member
      // can change: such an object goes to util-dynamodb.
      if (isPlainObject(value) && !Object.hasOwn(value, 'constructor'))
        return { M: marshallItem(value as Record<string, unknown>) };
      break;
  }
  return convertToAttr(value, documentMarshalling);
}

/**
 * An item (or key) as the attribute map the document client would have sent. Own keys only (a map's
 * keys may come from event data): an inherited member is never written, and an own `__proto__` key
 * stays an attribute instead of setting the map's prototype.
 */
export function marshallItem(item: Readonly<Record<string, unknown>>): AttributeMap {
  const attributes: AttributeMap = {};
  for (const name of Object.keys(item)) {
    const value = item[name];
    if (value !== undefined && typeof value !== 'function') defineOwn(attributes, name, attributeOf(value));
  }
  return attributes;
}
