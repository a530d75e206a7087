// Lab script syntax: prompts, comments, continuations, here-documents, shell words and lists.
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseScript } from "../../src/lab/index.js";
import { parseCommandList, tokenize } from "../../src/lab/words.js";

test("prompts are stripped, comments and blank lines skipped, lines numbered from 1", () => {
  const { steps, errors } = parseScript("# a comment\n\nroot@master30:~# kubectl get pods\n$ kubectl get nodes   # trailing comment\nkubectl get ns\n");
  assert.deepEqual(errors, []);
  assert.deepEqual(
    steps.map((s) => [s.line, s.command]),
    [
      [3, "kubectl get pods"],
      [4, "kubectl get nodes"],
      [5, "kubectl get ns"],
    ],
  );
});

test("a trailing backslash joins the next line (the seed's kubectl label ... \\ lines)", () => {
  const { steps } = parseScript("root@master30:~# kubectl label node worker31.cyh.cloud \\\ntopology.kubernetes.io/zone=v\nkubectl get nodes");
  assert.deepEqual(
    steps.map((s) => [s.line, s.command]),
    [
      [1, "kubectl label node worker31.cyh.cloud topology.kubernetes.io/zone=v"],
      [3, "kubectl get nodes"],
    ],
  );
});

test("here-documents: <<EOF, <<'EOF', <<-EOF (leading tabs removed); the body keeps # lines and indentation", () => {
  const script = ["cat > a.yaml <<EOF", "a:", "  # kept", "  b: 1", "EOF", "kubectl apply -f - <<'END'", "x: 1", "END", "cat <<-EOF", "\t\tindented", "\tEOF"].join("\n");
  const { steps, errors } = parseScript(script);
  assert.deepEqual(errors, []);
  assert.deepEqual(
    steps.map((s) => [s.line, s.command, s.stdin]),
    [
      [1, "cat > a.yaml", "a:\n  # kept\n  b: 1\n"],
      [6, "kubectl apply -f -", "x: 1\n"],
      [9, "cat", "indented\n"],
    ],
  );
});

test("an unclosed here-document is an error naming the line it started on", () => {
  const { errors } = parseScript("kubectl get pods\ncat > x <<EOF\na: 1\n");
  assert.deepEqual(errors, [{ line: 2, message: 'here-document started here is not closed by a line "EOF"' }]);
});

test("shell words: quotes, escapes, pipes and redirections", () => {
  const { tokens, error } = tokenize(`kubectl get pods -o wide --no-headers |awk '{print $1,$3,$7}' > "out file" >>x`);
  assert.equal(error, null);
  assert.deepEqual(
    tokens.map((t) => t.text),
    ["kubectl", "get", "pods", "-o", "wide", "--no-headers", "|", "awk", "{print $1,$3,$7}", ">", "out file", ">>", "x"],
  );
  assert.equal(tokenize("echo 'open").error, "unterminated single quote");
});

test("command lists: ';', '&&', '||' split pipelines; '&' is refused", () => {
  const { items } = parseCommandList("kubectl label nodes a x=1; kubectl label nodes b x=2 && kubectl get nodes || echo no");
  assert.deepEqual(
    items!.map((i) => [i.join, i.pipeline.commands.map((c) => c.join(" "))]),
    [
      [";", ["kubectl label nodes a x=1"]],
      [";", ["kubectl label nodes b x=2"]],
      ["&&", ["kubectl get nodes"]],
      ["||", ["echo no"]],
    ],
  );
  assert.match(parseCommandList("sleep 5 &").error ?? "", /background/);
  assert.equal(parseCommandList("kubectl get pods |").error, 'empty command after "|"');
});
