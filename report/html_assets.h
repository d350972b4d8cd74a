// The fixed parts of the HTML report: its style sheet and its scripts.
//
// Why: the report is one file that opens offline, so CSS and JavaScript are
// inlined; keeping them here, apart from the C++ that writes the data, lets
// them be read (and changed) as CSS and JavaScript.
//
// Data the script reads (written by html.cpp, one JSON blob so that the
// per-element markup stays small on large fabrics):
//   S: every name, once;  sides[k].nodes[i] = [name, kind 0 switch/1 host,
//   level, folded hosts];  sides[k].links[i] = [a, b, [[port_a, port_b,
//   load a->b, load b->a], ...], [[source, destination], ...], credit loop 0/1];
//   diff[i] = [name a, name b, hottest load first, second, largest cable
//   change] (--compare);  with a health overlay, sides[k].health = {links:
//   [per link: indices into cables, or null], cables: [[name a, port a,
//   name b, port b, "4x HDR" or null, utilisation 0..1 or null, bytes/s a->b,
//   bytes/s b->a, errors last interval, errors total, downshifted 0/1,
//   state, [findings], measured 0/1], ...]}.
// The drawing's elements carry data-i (link) or data-n (node) indices into it.
#pragma once

namespace ibsm::report::assets {

// Runs first, in <head>: any later script error lands in an attribute the
// browser test reads from the dumped DOM.
inline constexpr const char* error_hook =
    R"(window.onerror=function(m,u,l){document.documentElement.setAttribute('data-error',String(m)+' line '+l);};)";

inline constexpr const char* style = R"(
body{font:14px/1.4 system-ui,sans-serif;margin:16px;color:#222;background:#fafafa}
h1{font-size:20px;margin:0 0 4px}h2{font-size:17px;margin:20px 0 8px}h3{font-size:15px;margin:12px 0 6px}
.meta{color:#666;font-size:12px}
.sides{display:flex;gap:16px;align-items:flex-start}.side{flex:1;min-width:0}
.cards{display:flex;flex-wrap:wrap;gap:10px}
.card{background:#fff;border:1px solid #ddd;border-radius:6px;padding:8px 12px;min-width:170px}
.card h3{margin:0 0 6px;font-size:13px;text-transform:uppercase;color:#555;letter-spacing:.03em}
.card table{border-collapse:collapse;font-size:13px}.card td,.card th{padding:1px 6px 1px 0;text-align:right}
.card td:first-child,.card th:first-child{text-align:left}
.bad{color:#c00;font-weight:600}.ok{color:#080}
.big{font-size:22px;font-weight:600}.hide{display:none}
svg.fab,svg.diff,svg.hlt{width:100%;height:auto;max-height:80vh;background:#fff;border:1px solid #ddd;border-radius:6px;cursor:grab}
line.l{stroke-linecap:round;vector-effect:non-scaling-stroke}
line.l:hover{stroke:#000}
line.cl{stroke:#e0f;stroke-dasharray:8 4;stroke-opacity:1}
rect.s{fill:#446;stroke:#fff;stroke-width:.5;vector-effect:non-scaling-stroke}
circle.h{fill:#889}
line.er{stroke-dasharray:7 3}line.iso{stroke-dasharray:2 4}line.nm{stroke-opacity:.8}
.b{vector-effect:non-scaling-stroke}
circle.b.er{fill:#d00;stroke:#fff;stroke-width:1}circle.b.rp{fill:none;stroke:#d00;stroke-width:2}
path.b.ds{fill:#f08c00;stroke:#fff;stroke-width:1}path.b.iso{fill:none;stroke:#444;stroke-width:2.5}
.legend span.mk{display:inline-block;width:9px;height:9px;vertical-align:middle;margin:0 3px 0 6px}
.legend span.mk.er{background:#d00;border-radius:50%}.legend span.mk.rp{border:2px solid #d00;border-radius:50%;width:6px;height:6px}
.legend span.mk.ds{background:#f08c00;transform:rotate(45deg);width:7px;height:7px}
.legend span.mk.iso{width:auto;height:auto;color:#444;font-weight:700}
.legend{font-size:12px;color:#555;margin:4px 0 8px}
.legend span.sw{display:inline-block;width:18px;height:8px;border-radius:2px;vertical-align:middle;margin:0 3px 0 6px}
table.t{border-collapse:collapse;font-size:13px;background:#fff}
table.t td,table.t th{border:1px solid #ddd;padding:2px 8px;text-align:left}
table.t td.n{text-align:right;font-variant-numeric:tabular-nums}
svg.hist{background:#fff;border:1px solid #ddd;border-radius:6px}
svg.hist rect{stroke:#0002}svg.hist text{font-size:10px;fill:#444}
ol.cycle{font-family:monospace;font-size:12px}
#tip{position:fixed;display:none;background:#fff;border:1px solid #888;border-radius:4px;padding:6px 8px;
font-size:12px;max-width:460px;box-shadow:0 2px 8px rgba(0,0,0,.2);pointer-events:none;z-index:9}
#tip b{font-weight:600}#tip .ex{color:#555}
)";

inline constexpr const char* script = R"(
(function(){
var D=JSON.parse(document.getElementById('report-data').textContent);
var S=D.S,tip=document.getElementById('tip');
function e(s){return String(s).replace(/[&<>"']/g,function(c){return '&#'+c.charCodeAt(0)+';';});}
function nm(side,i){var n=D.sides[side].nodes[i];var t=e(S[n[0]]);
 if(n[1]===0&&n[2])t+=' (level '+n[2]+')';if(n[3])t+=' ['+n[3]+' hosts folded in]';return t;}
function linkText(side,i){var L=D.sides[side].links[i],a=nm(side,L[0]),b=nm(side,L[1]);
 var sa=e(S[D.sides[side].nodes[L[0]][0]]),sb=e(S[D.sides[side].nodes[L[1]][0]]);
 var h='<b>'+a+'</b> &harr; <b>'+b+'</b>';if(L[4])h+='<br><b style="color:#c0c">on a credit-loop cycle</b>';
 h+='<br>'+L[2].length+' cable'+(L[2].length>1?'s':'');
 L[2].forEach(function(c){h+='<br>'+sa+'['+c[0]+'] &rarr; '+sb+'['+c[1]+']: '+c[2]+' routes; back: '+c[3];});
 if(L[3].length){h+='<br><span class="ex">e.g. ';h+=L[3].map(function(x){return e(S[x[0]])+' &rarr; '+e(S[x[1]]);}).join('<br>&nbsp;&nbsp;&nbsp;&nbsp;');h+='</span>';}
 return h;}
function diffText(i){var d=D.diff[i];
 return '<b>'+e(S[d[0]])+'</b> &harr; <b>'+e(S[d[1]])+'</b><br>hottest cable: '+d[2]+' routes first, '+d[3]+
  ' second<br>largest change on one cable: '+(d[4]>0?'+':'')+d[4];}
function pct(u){return (u*100).toFixed(1)+' %';}
function rate(v){var u=['B/s','kB/s','MB/s','GB/s','TB/s'],k=0;while(v>=1000&&k<4){v/=1000;k++;}return (k?v.toPrecision(3):String(v))+' '+u[k];}
function healthText(side,i){var H=D.sides[side].health,L=D.sides[side].links[i],cs=H.links[i];
 var h='<b>'+nm(side,L[0])+'</b> &harr; <b>'+nm(side,L[1])+'</b>';
 if(!cs)return h+'<br>no counters or link checks for this link';
 cs.forEach(function(k){var c=H.cables[k];
  h+='<br>'+e(S[c[0]])+'['+c[1]+'] &harr; '+e(S[c[2]])+'['+c[3]+']'+(c[4]!==null?' '+e(S[c[4]]):'')+': ';
  h+=c[5]!==null?pct(c[5])+' used':(c[13]?'utilisation unknown (no width or speed)':'no rates');
  if(c[13])h+=' ('+rate(c[6])+' &rarr;, '+rate(c[7])+' &larr;)';
  h+='; errors '+c[8]+' in the last interval, '+c[9]+' in total';
  if(c[10])h+='; <b style="color:#f08c00">downshifted</b>';
  if(S[c[11]]!=='ok')h+='; <b style="color:#c00">'+e(S[c[11]])+'</b>';
  c[12].forEach(function(f){h+='<br>&nbsp;&nbsp;'+e(S[f]);});});
 return h;}
function show(ev,h){tip.innerHTML=h;tip.style.display='block';
 var x=ev.clientX+14,y=ev.clientY+14;if(x+tip.offsetWidth>innerWidth)x=ev.clientX-tip.offsetWidth-14;
 if(y+tip.offsetHeight>innerHeight)y=ev.clientY-tip.offsetHeight-14;tip.style.left=x+'px';tip.style.top=y+'px';}
var svgs=document.querySelectorAll('svg.fab,svg.diff,svg.hlt'),home=svgs.length?svgs[0].getAttribute('viewBox'):'';
function vb(s){return s.getAttribute('viewBox').split(' ').map(Number);}
function setAll(v){svgs.forEach(function(s){s.setAttribute('viewBox',v.join(' '));});}
svgs.forEach(function(svg){
 var side=svg.hasAttribute('data-side')?Number(svg.getAttribute('data-side')):-1,drag=null;
 svg.addEventListener('mousemove',function(ev){
  if(drag){var v=vb(svg),r=svg.getBoundingClientRect(),k=v[2]/r.width;
   v[0]=drag[2]-(ev.clientX-drag[0])*k;v[1]=drag[3]-(ev.clientY-drag[1])*k;setAll(v);return;}
  var t=ev.target,i=t.getAttribute('data-i'),n=t.getAttribute('data-n');
  if(i!==null)show(ev,side<0?diffText(Number(i)):svg.classList.contains('hlt')?healthText(side,Number(i)):linkText(side,Number(i)));
  else if(n!==null&&side>=0)show(ev,nm(side,Number(n)));
  else tip.style.display='none';});
 svg.addEventListener('mouseleave',function(){tip.style.display='none';drag=null;});
 svg.addEventListener('mousedown',function(ev){var v=vb(svg);drag=[ev.clientX,ev.clientY,v[0],v[1]];ev.preventDefault();});
 svg.addEventListener('mouseup',function(){drag=null;});
 svg.addEventListener('dblclick',function(){setAll(home.split(' ').map(Number));});
 svg.addEventListener('wheel',function(ev){ev.preventDefault();var v=vb(svg),r=svg.getBoundingClientRect();
  var f=ev.deltaY<0?0.8:1.25,px=v[0]+(ev.clientX-r.left)/r.width*v[2],py=v[1]+(ev.clientY-r.top)/r.height*v[3];
  setAll([px-(px-v[0])*f,py-(py-v[1])*f,v[2]*f,v[3]*f]);},{passive:false});
});
// Build the hover text of the first link once: a blob the hover code cannot
// read fails here, at load (window.onerror), not at the first mouse-over.
D.sides.forEach(function(s,k){if(s.links.length)linkText(k,0);if(s.nodes.length)nm(k,0);
 if(s.health){var f=s.health.links.findIndex(function(c){return c!==null;});if(f>=0)healthText(k,f);}});
if(D.diff.length)diffText(0);
// #selftest (the browser test): hover the first link of each drawing with a
// synthetic mouse event, through the page's own handlers, and leave what the
// details box showed in data-hover-<k> on <body>.
if(location.hash==='#selftest')svgs.forEach(function(svg,k){var l=svg.querySelector('line[data-i]');if(!l)return;
 l.dispatchEvent(new MouseEvent('mousemove',{bubbles:true,clientX:10,clientY:10}));
 document.body.setAttribute('data-hover-'+k,tip.style.display==='block'?tip.textContent:'');});
var links=0;document.querySelectorAll('svg.fab line[data-i]').forEach(function(){links++;});
document.body.setAttribute('data-links-drawn',String(links));
document.body.setAttribute('data-ms',String(Math.round(performance.now())));
document.body.setAttribute('data-ready','1');
})();
)";

} // namespace ibsm::report::assets
