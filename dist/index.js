#!/usr/bin/env node
import{_ as e,t}from"./version-BaXOSJAW.js";import{t as n}from"./args-DVIxh-DZ.js";import{d as r,h as i,i as a,r as o,s,t as c,u as l}from"./spec-Dm-7URhP.js";import{a as u,c as d,i as f,l as ee,n as p,o as m,s as te,u as h}from"./specs-BYjImjo8.js";import{a as ne,o as g,t as _}from"./exit-codes-B0zakMbL.js";const v=/* @__PURE__ */ new Set;function y(){for(let e of[process.stdout,process.stderr])e.on(`error`,t=>{if(t.code!==`EPIPE`)throw t;v.add(e)})}function b(e,t){v.has(e)||e.write(t)}const x=`\r\x1B[2K`;let S=!1;function C(){S&&b(process.stderr,x),S=!1}const w={out:e=>{process.stdout.isTTY&&C(),b(process.stdout,`${e}\n`)},err:e=>{C(),b(process.stderr,`${e}\n`)},env:process.env,...process.stderr.isTTY?{status:e=>{if(!e)return C();let t=Math.max(20,(process.stderr.columns||80)-1);b(process.stderr,`${x}${e.length>t?`${e.slice(0,t-1)}…`:e}`),S=!0}}:{}},T=e=>e.replace(/`/g,``);function E(e,t,n=0){let r=[],i=``,a=t-n;for(let n of e.split(/\s+/).filter(Boolean))i&&i.length+1+n.length>a?(r.push(i),i=n,a=t):i=i?`${i} ${n}`:n;return i&&r.push(i),r}const D={"api-url":`URL`,"api-key":`KEY`,"ca-cert":`FILE`,"deployment-id":`ID`,"github-token":`TOKEN`,"model-dir":`DIR`,"branch-prefix":`PREFIX`,"environment-prefix":`PREFIX`,"request-timeout":`SECONDS`,"smoke-timeout-seconds":`SECONDS`,"timeout-minutes":`MINUTES`,"min-age":`AGE`,concurrency:`N`,exclude:`GLOBS`,data:`JSON`};function O(e){if(e.boolean)return`--${e.name}`;let t=a[e.name],n=/(^|-)(branch|ref)(-name)?$/.test(e.name)?`NAME`:e.name.includes(`message`)?`TEXT`:`VALUE`;return`--${e.name} ${t?t.join(`|`):D[e.name]??n}`}function k(e){let t=[];return e.required?t.push(`required`):e.default?.includes("${{")?t.push(`in Actions: ${e.default.replace(/\$\{\{\s*(.*?)\s*\}\}/,`$1`)}`):e.default&&e.default!==`false`&&t.push(`default ${e.default}`),e.env&&t.push(i(e.name)),t}function A(e){let t=`  ${O(e)}`,n=k(e),r=`${T(e.description)}${n.length?` [${n.join(`; `)}]`:``}`,i=` `.repeat(30);if(t.length>=29)return[t,...E(r,70).map(e=>i+e)];let[a=``,...o]=E(r,70);return[t.padEnd(30)+a,...o.map(e=>i+e)]}const j=[[`0`,`done`],[`1`,`failed (an invalid model with fail-on-invalid, a failed dbt sync, a platform error about the request)`],[`2`,`bad input (a flag, a variable or an argument: nothing was sent; a key-queries file naming a member no semantic layer has: only reads were sent)`],[`3`,`the platform is unreachable or refused (connection, TLS, timeout, 401, 403, 429 or 5xx after every retry)`]];function M(e){let t=[`datamodel-ci ${e.name}: ${T(e.summary)}`,``];t.push(`Usage: datamodel-ci ${e.name}${e.args?` ${e.args.usage}`:``}${e.flags.length?` [--flags]`:``}`),e.description&&t.push(``,...E(T(e.description),100)),t.push(``,e.flags.some(e=>e.env)?`Flags (a flag with a variable is read from it when not given):`:`Flags:`);let n=e.flags.find(e=>e.boolean&&e.default===`true`)??e.flags.find(e=>e.boolean);n&&t.push(`  (a switch takes no value: --${n.name}, or --${n.name}=false to turn it off)`);for(let n of e.flags)t.push(...A(n));return t.push(`  --help`.padEnd(30)+`Print this help.`),t.push(``,`Example:`,`  ${e.example}`,``),t.push(`Exit codes: ${j.map(([e,t])=>`${e} ${t.split(` (`)[0]}`).join(`, `)}.`),t.join(`
`)}function N(e){let n=e.filter(e=>!e.hidden),r=(e,t)=>{let[n=``,...r]=E(T(t),70);return[`  ${e}`.padEnd(30)+n,...r.map(e=>` `.repeat(30)+e)]},i=[`datamodel-ci ${t}: data-model previews for pull requests, on the platform's API.`,``,`Usage: datamodel-ci <command> [--flags]`,``];i.push(`Commands that also run as GitHub Actions:`);for(let e of n.filter(e=>e.action))i.push(...r(e.name,e.summary));i.push(``,`Other commands:`);for(let e of n.filter(e=>!e.action))i.push(...r(e.args?`${e.name} ${e.args.usage}`:e.name,e.summary));return i.push(...r(`version`,`Print the version.`),...r(`help [COMMAND]`,`This text, or the help of a command (as COMMAND --help).`)),i.push(``,`Every command that talks to the platform reads its connection from flags or variables:`),i.push(...r(`--api-url URL`,`DATAMODEL_CI_API_URL: https:// address of the tenant`)),i.push(...r(`--api-key KEY`,`DATAMODEL_CI_API_KEY: the API key (never printed)`)),i.push(...r(`--ca-cert FILE`,`DATAMODEL_CI_CA_CERT: extra trusted CA (NODE_EXTRA_CA_CERTS works too)`)),i.push(``,`stdout carries only the result (name=value outputs, or one JSON document with --json); logs go to stderr.`),i.push(`Exit codes:`,...j.map(([e,t])=>`  ${e}  ${t}`)),i.push(``,`Run "datamodel-ci <command> --help" for its flags. Docs: docs/cli.md. The platform emulator: npx datamodel-ci-emulator --help`),i.join(`
`)}const P=[`bash`,`zsh`];function F(e,t){return e.name===`help`?t.map(e=>e.name):e.args?.values??[]}function I(e){let t=(e,t)=>({name:e,summary:e===`help`?`Print the help of the CLI or of a command.`:`Print the version.`,flags:[],example:``,action:!1,...t?{args:t}:{},run:()=>Promise.resolve(0)});return[...e.filter(e=>!e.hidden),t(`help`,{usage:`[COMMAND]`,min:0,max:1}),t(`version`)]}const L=e=>`'${e.replace(/'/g,`'\\''`)}'`;function R(e){let t=I(e),n=t.map(e=>{let n=[...e.flags.map(e=>`--${e.name}`),`--help`].join(` `),r=e.flags.filter(e=>!e.boolean).map(e=>`--${e.name}`),i=F(e,t).join(` `);return`    ${e.name}) flags=${L(n)}; valued=${L(` ${r.join(` `)} `)}; args=${L(i)} ;;`}),r=Object.entries(a).map(([e,t])=>`    --${e}) COMPREPLY=($(compgen -W ${L(t.join(` `))} -- "$cur")); return ;;`),i=Object.entries(o).map(([e,t])=>`    --${e}) COMPREPLY=($(compgen -${t===`dir`?`d`:`f`} -- "$cur")); return ;;`);return`# bash completion for datamodel-ci (generated by "datamodel-ci completion bash").
# Load it now:     source <(datamodel-ci completion bash)
# Or for good:     datamodel-ci completion bash > ~/.local/share/bash-completion/completions/datamodel-ci
_datamodel_ci() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  COMPREPLY=()
  if [[ $COMP_CWORD -eq 1 ]]; then
    COMPREPLY=($(compgen -W ${L(t.map(e=>e.name).join(` `))} -- "$cur"))
    return
  fi
  local flags='' valued='' args=''
  case "\${COMP_WORDS[1]}" in
${n.join(`
`)}
    *) return ;;
  esac
  case "$prev" in
${[...r,...i].join(`
`)}
  esac
  # The value of a flag that takes one is free text: offer nothing.
  if [[ "$valued" == *" $prev "* ]]; then return; fi
  # Arguments typed so far (a flag's value is not one).
  local i n=0
  for ((i = 2; i < COMP_CWORD; i++)); do
    if [[ "\${COMP_WORDS[i]}" == -* ]]; then
      [[ "$valued" == *" \${COMP_WORDS[i]} "* ]] && i=$((i + 1))
    else
      n=$((n + 1))
    fi
  done
  if [[ "$cur" != -* && -n "$args" && $n -eq 0 ]]; then
    COMPREPLY=($(compgen -W "$args" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$flags" -- "$cur"))
  fi
}
complete -F _datamodel_ci datamodel-ci
`}function z(e){return(e.replace(/`/g,``).split(/(?<=\.)\s/)[0]??``).replace(/[[\]:'\\]/g,``).replace(/\.$/,``).slice(0,80)}function B(e){let t=I(e),n=t.map(e=>`    ${L(`${e.name}:${z(e.summary)}`)}`),r=t.map(e=>{let n=e.flags.map(e=>{let t=`--${e.name}[${z(e.description)}]`;if(e.boolean)return L(t);let n=a[e.name],r=o[e.name],i=n?`(${n.join(` `)})`:r===`dir`?`_files -/`:r===`file`?`_files`:``;return L(`${t}:${e.name}:${i}`)});n.push(L(`--help[Print the help of the command]`));let r=F(e,t);return e.args&&n.push(L(`1:${e.args.usage.split(` `)[0]?.replace(/[<>[\]]/g,``).toLowerCase()??`argument`}:${r.length?`(${r.join(` `)})`:``}`)),`    ${e.name})\n      _arguments \\\n        ${n.join(` \\
        `)}\n      ;;`});return`#compdef datamodel-ci
# zsh completion for datamodel-ci (generated by "datamodel-ci completion zsh").
# Load it now:     source <(datamodel-ci completion zsh)
# Or for good:     datamodel-ci completion zsh > "\${fpath[1]}/_datamodel-ci"   (then restart zsh)
_datamodel-ci() {
  local -a commands
  commands=(
${n.join(`
`)}
  )
  if (( CURRENT == 2 )); then
    _describe -t commands 'datamodel-ci command' commands
    return
  fi
  local command=$words[2]
  # The command's own words, as _arguments expects them.
  shift words
  (( CURRENT-- ))
  case $command in
${r.join(`
`)}
  esac
}
if [[ "\${funcstack[1]}" == "_datamodel-ci" ]]; then
  _datamodel-ci "$@"
else
  compdef _datamodel-ci datamodel-ci
fi
`}function V(e){let t={name:`completion`,summary:`Print shell completion for bash or zsh: source <(datamodel-ci completion bash).`,args:{usage:`<bash|zsh>`,min:1,max:1,values:P},flags:[],example:`source <(datamodel-ci completion bash)`,action:!1,run:(r,i)=>{let[a]=l(t,r).positionals;if(a===`bash`)i.out(R(e()));else if(a===`zsh`)i.out(B(e()));else throw new n(`completion: got ${JSON.stringify(a)}, expected one of ${P.join(`, `)}`);return Promise.resolve(0)}};return t}const H={"start-dev-branch":()=>import(`./start-dev-branch-rjgcLS3P.js`).then(e=>e.startDevBranchCommand),"upload-model":()=>import(`./upload-model-DCbwHH_b.js`).then(e=>e.uploadModelCommand),validate:()=>import(`./validate-DgBjIauA.js`).then(e=>e.validateCommand),"enable-staging":()=>import(`./enable-staging-DrWgOCQc.js`).then(e=>e.enableStagingCommand),"dbt-sync-and-wait":()=>import(`./dbt-sync-and-wait-Boq7scTj.js`).then(e=>e.dbtSyncCommand),"merge-to-default":()=>import(`./merge-to-default-Cia9AePJ.js`).then(e=>e.mergeToDefaultCommand),"cleanup-branch":()=>import(`./cleanup-branch-Vtgy2UkZ.js`).then(e=>e.cleanupBranchCommand),impact:()=>import(`./impact-BRcODj0_.js`).then(e=>e.impactCommand),drift:()=>import(`./drift-Hvh-LQMg.js`).then(e=>e.driftCommand),revert:()=>import(`./revert-C6UxC-ji.js`).then(e=>e.revertCommand),pr:()=>import(`./pr-9iN1CLed.js`).then(e=>e.prCommand)};function U(e,t){return{...e,run:async(e,n)=>(await t())(e,n)}}const W={pr:`GITHUB_EVENT_PATH=event.json datamodel-ci pr --deployment-id 1 --dry-run`,"start-dev-branch":`datamodel-ci start-dev-branch --deployment-id 1 --branch preview-pr-12`,"upload-model":`datamodel-ci upload-model --deployment-id 1 --branch preview-pr-12 --model-dir analytics --dry-run`,validate:`datamodel-ci validate --deployment-id 1 --branch preview-pr-12`,"enable-staging":`datamodel-ci enable-staging --deployment-id 1 --branch preview-pr-12 --smoke-test`,"dbt-sync-and-wait":`datamodel-ci dbt-sync-and-wait --deployment-id 1 --ref main --timeout-minutes 20`,"merge-to-default":`datamodel-ci merge-to-default --deployment-id 1 --branch preview-pr-12 --dry-run`,"cleanup-branch":`datamodel-ci cleanup-branch --deployment-id 1 --mode sweep --min-age 7d --dry-run`,impact:`datamodel-ci impact --deployment-id 1 --branch preview-pr-12 --json`,drift:`datamodel-ci drift --deployment-id 1 --model-dir analytics --json`,revert:`datamodel-ci revert --deployment-id 1 --model-dir analytics --commit 3f2c1ab --confirm`};async function G(e,t,n,r){let[{runAction:i},a]=await Promise.all([import(`./action-run-CjjDppoY.js`),H[e]()]);return i(e,a,t,n,r)}const K=r.map(e=>({name:e.command,summary:e.description,description:`Runs as the GitHub Action "${e.title}" too (${e.dir===`.`?`action.yml`:`${e.dir}/action.yml`}); in a terminal, the outputs are printed as name=value lines.`,flags:c(e.command),example:W[e.command]??`datamodel-ci ${e.command} --deployment-id 1`,action:!0,run:(t,n)=>G(e.command,t,n)})),q=[...c(`impact`),p,f],J={name:`diff`,summary:`What a branch changes in the semantic layer against production's, the content its breaking changes hit, and (--data) how the numbers move.`,description:`The impact action under another name: compares the branch's staging /meta and model files with production's; --data also runs the key queries on both (the data diff); --json carries the whole change set (and data diff) as "result". The log ends with the review by name (the members changed, the content the breaking ones hit, each persona's changes, each key query, the rollups) and where the detail files went (--out, else a folder of the run's own).`,flags:q,example:`datamodel-ci diff --deployment-id 1 --branch preview-pr-12 --data`,action:!1,run:(e,t)=>G(`impact`,X(e),t,{name:`diff`,flags:q})},Y={...h,run:async(e,t)=>{let[{runAction:n},{planCommand:r}]=await Promise.all([import(`./action-run-CjjDppoY.js`),import(`./plan-CKFIL9ho.js`)]);return n(`pr`,r,X(e),t,{name:`plan`,flags:h.flags,outputs:!1})}};function X(e){let t=[];for(let n of e)n===`--`||t.includes(`--`)?t.push(n):n===`--data`||n===`--data=true`?t.push(`--data-diff=values`):n!==`--data=false`&&t.push(n);return t}const Z=[...K,Y,J,U(m,()=>import(`./check-DUXsM4VY.js`).then(e=>e.checkCommand)),U(te,()=>import(`./doctor-BIXqblpC.js`).then(e=>e.doctorCommand)),U(u,()=>import(`./api-ApUzCbxJ.js`).then(e=>e.apiCommand)),U(d,()=>import(`./endpoints-DO9hY-xx.js`).then(e=>e.endpointsCommand)),V(()=>Z),U(ee,()=>import(`./hash-model-BXRuKLwu.js`).then(e=>e.hashModelCommand))];function Q(e){return Z.find(t=>t.name===e)}function re(e,t){for(let t=0;t<e.length;t++){let n=e[t];if(n===`--api-url`)return e[t+1];if(n.startsWith(`--api-url=`))return n.slice(10)}return t.env.DATAMODEL_CI_API_URL}function $(e,t){let n=Z.filter(t=>!t.hidden&&(t.name.startsWith(e.slice(0,3))||e.startsWith(t.name))).map(e=>e.name);return t.err(`datamodel-ci: unknown command "${e}"${n.length?` (did you mean ${n.join(` or `)}?)`:``}. Run "datamodel-ci help" for the list.`),_.badInput}async function ie(r,i=w){let[a,...o]=r;if(a===`--version`||a===`-v`||a===`version`)return i.out(t),_.done;if(!a||a===`--help`||a===`-h`||a===`help`){let e=a===`help`?o[0]:void 0;if(e){let t=Q(e);return t?(i.out(M(t)),_.done):$(e,i)}return a?i.out(N(Z)):i.err(N(Z)),a?_.done:_.badInput}let c=Q(a);if(!c)return $(a,i);if(s(o))return i.out(M(c)),_.done;try{return await c.run(o,i)}catch(t){let r=`datamodel-ci ${a}: ${e(t)}`,s=g(t,re(o,i)),c=ne(t);i.err(s?`${r}\nhint: ${s}`:r),t instanceof n&&!r.includes(`--help`)&&i.err(`Run "datamodel-ci ${a} --help" for its flags.`);let l=o.indexOf(`--`);return(l===-1?o:o.slice(0,l)).includes(`--json`)&&i.out(JSON.stringify({command:a,exitCode:c,errors:[{message:r,...s?{hint:s}:{}}]})),c}}y(),process.exitCode=await ie(process.argv.slice(2));export{};