// Label selectors against apimachinery's semantics (labels.Requirement.Matches, LabelSelectorAsSelector):
// NotIn and DoesNotExist match an absent key, In and Exists do not, an empty selector matches all.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { compileSelector, compileSelectorChecked, formatLabels } from "../../src/k8s/selector.js";

describe("label selector matching", () => {
  const sel = (s: Parameters<typeof compileSelector>[0]) => compileSelector(s);

  it("empty selector matches everything, including no labels", () => {
    assert.ok(sel({}).isEmpty);
    assert.ok(sel({}).matches({}));
    assert.ok(sel({ matchLabels: {}, matchExpressions: [] }).matches({ a: "1" }));
  });

  it("matchLabels requires every pair", () => {
    const s = sel({ matchLabels: { run: "web1", tier: "fe" } });
    assert.ok(s.matches({ run: "web1", tier: "fe", extra: "x" }));
    assert.ok(!s.matches({ run: "web1" }));
    assert.ok(!s.matches({ run: "web2", tier: "fe" }));
  });

  it("In needs the key; NotIn matches when the key is absent", () => {
    const inSel = sel({ matchExpressions: [{ key: "env", operator: "In", values: ["a", "b"] }] });
    const notIn = sel({ matchExpressions: [{ key: "env", operator: "NotIn", values: ["a"] }] });
    assert.ok(inSel.matches({ env: "b" }));
    assert.ok(!inSel.matches({}));
    assert.ok(notIn.matches({}), "apimachinery: NotIn is true when the label is absent");
    assert.ok(notIn.matches({ env: "c" }));
    assert.ok(!notIn.matches({ env: "a" }));
  });

  it("Exists and DoesNotExist look at the key only", () => {
    assert.ok(sel({ matchExpressions: [{ key: "k", operator: "Exists" }] }).matches({ k: "" }));
    assert.ok(!sel({ matchExpressions: [{ key: "k", operator: "Exists" }] }).matches({}));
    assert.ok(sel({ matchExpressions: [{ key: "k", operator: "DoesNotExist" }] }).matches({ j: "1" }));
    assert.ok(!sel({ matchExpressions: [{ key: "k", operator: "DoesNotExist" }] }).matches({ k: "1" }));
  });

  it("matchLabels and matchExpressions are ANDed", () => {
    const s = sel({ matchLabels: { app: "db" }, matchExpressions: [{ key: "env", operator: "NotIn", values: ["dev"] }] });
    assert.ok(s.matches({ app: "db" }));
    assert.ok(!s.matches({ app: "db", env: "dev" }));
    assert.ok(!s.matches({ env: "prod" }));
  });

  it("equivalent selectors share a canonical key", () => {
    const a = sel({ matchLabels: { b: "2", a: "1" }, matchExpressions: [{ key: "z", operator: "In", values: ["y", "x", "x"] }] });
    const b = sel({ matchExpressions: [{ key: "z", operator: "In", values: ["x", "y"] }], matchLabels: { a: "1", b: "2" } });
    assert.equal(a.key, b.key);
    assert.equal(a.key, "a=1,b=2,z in (x,y)");
    assert.notEqual(sel({ matchLabels: { a: "1" } }).key, sel({ matchLabels: { a: "2" } }).key);
  });
});

describe("selector mismatch descriptions", () => {
  it("names each unmet requirement in words", () => {
    const s = compileSelector({
      matchLabels: { project: "myproject", run: "test" },
      matchExpressions: [
        { key: "env", operator: "In", values: ["prod"] },
        { key: "tier", operator: "NotIn", values: ["fe"] },
        { key: "gpu", operator: "Exists" },
        { key: "legacy", operator: "DoesNotExist" },
      ],
    });
    assert.deepEqual(s.describeMismatch({ run: "web2", tier: "fe", legacy: "yes", env: "dev" }), [
      "has label env=dev, not one of env in (prod)",
      "lacks label gpu",
      "has label legacy=yes, but the selector requires !legacy",
      "lacks label project=myproject",
      "has label run=web2, not run=test",
      "has label tier=fe, which tier notin (fe) excludes",
    ]);
    assert.deepEqual(s.describeMismatch({ project: "myproject", run: "test", env: "prod", gpu: "1" }), []);
  });
});

describe("invalid selectors", () => {
  it("report the field and match nothing", () => {
    const bad = compileSelectorChecked({ matchExpressions: [{ key: "a", operator: "Gt", values: ["1"] }] });
    assert.ok(!bad.ok);
    assert.deepEqual(bad.error, { path: "matchExpressions[0].operator", reason: 'unknown operator "Gt"' });
    const compiled = compileSelector({ matchExpressions: [{ key: "a", operator: "In", values: [] }] });
    assert.equal(compiled.error?.path, "matchExpressions[0].values");
    assert.ok(!compiled.matches({ a: "1" }));
    assert.ok(!compileSelectorChecked({ matchExpressions: [{ key: "a", operator: "Exists", values: ["x"] }] }).ok);
  });
});

describe("formatLabels", () => {
  it("prints labels like kubectl --show-labels", () => {
    assert.equal(formatLabels({ run: "web1", a: "b" }), "a=b,run=web1");
    assert.equal(formatLabels({}), "<none>");
  });
});
