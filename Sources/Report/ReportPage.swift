import Foundation

/// The report as one self-contained HTML file: the data inline as JSON, the styles and the script inline, no network,
/// no external script or font. It opens offline and can be attached to a bug report.
package enum ReportPage {
    /// The page for `data`.
    package static func html(_ data: ReportData) -> String {
        let json = payloadJSON(data)
        let title = "nearcatch-sim report: \(data.run["scenario"] as? String ?? "run"), \(data.peers) peers, seed \(data.run["seed"] as? Int ?? 0)"
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(title))</title>
            <style>\(style)</style>
            <script>\(errorCapture)</script>
            </head>
            <body>
            <h1>\(escape(title))</h1>
            <p id="lead"></p>
            <section id="room"><h2>The room from above</h2>
            <div class="controls"><button id="play" type="button">Play</button>
            <input id="slider" type="range" min="0" max="0" value="0" aria-label="time">
            <span id="clock"></span></div>
            <svg id="map" role="img" aria-label="the room from above"></svg>
            <p class="legend"><span class="k dev"></span> device (line: where its phone's back faces)
            <span class="k lnk"></span> ranged since the last frame <span class="k tch"></span> touching
            <span class="k bmp"></span> bump (ringed: fired with the phones more than 8 cm apart)
            <span class="k mis"></span> near miss; grey: each device's track.
            Click a bump or near miss to see its pair below.</p>
            </section>
            <section id="pair"><h2>A pair around its bump or near miss</h2>
            <select id="event" aria-label="bump or near miss"></select>
            <svg id="series" role="img" aria-label="true distance and estimate"></svg>
            <p class="legend"><span class="k tru"></span> true distance <span class="k est"></span> the estimate the
            initiator's app saw (the responder's, in a crowd's trace that does not follow the initiator)
            <span class="k raw"></span> raw measurement <span class="k lim"></span> 8 cm</p>
            </section>
            <section id="dists"><h2>Distributions</h2>
            <div class="grid"><figure><svg id="h-raw"></svg><figcaption>distance error, raw (|measured &minus; true|, cm)</figcaption></figure>
            <figure><svg id="h-filtered"></svg><figcaption>distance error, filtered (what apps see, cm)</figcaption></figure>
            <figure><svg id="h-direction"></svg><figcaption>direction error (degrees)</figcaption></figure>
            <figure><svg id="h-latency"></svg><figcaption>bump latency (s from the touch; negative: early)</figcaption></figure>
            <figure><svg id="bands"></svg><figcaption>exchanges per pair per second by true distance</figcaption></figure>
            <figure><svg id="air"></svg><figcaption>exchanges a second (line: what one room's air carries)</figcaption></figure></div>
            </section>
            <section id="figures"><h2>Summary</h2><table id="summary"></table>
            <h2>Settings</h2><table id="settings"></table></section>
            <pre id="selftest" hidden></pre>
            <script id="data" type="application/json">\(json)</script>
            <script>\(script)</script>
            </body>
            </html>

            """
    }

    /// The data as JSON for the page's script; `</` is written `<\/` so that no string in it can end the script
    /// element.
    static func payloadJSON(_ d: ReportData) -> String {
        func round(_ x: Double, _ digits: Double = 1000) -> Double { x.isFinite ? (x * digits).rounded() / digits : 0 }
        func hist(_ h: ReportData.Histogram) -> [String: Any] { ["from": h.from, "width": h.width, "counts": h.counts] }
        var payload: [String: Any] = [
            "run": d.run, "peers": d.peers, "every": d.every, "lines": d.lines,
            "times": d.frames.map { round($0.time) },
            "x": d.frames.map { $0.x.map(Int.init) }, "y": d.frames.map { $0.y.map(Int.init) },
            "h": d.frames.map { $0.heading.map(Int.init) },
            "bumps": d.bumps.map { [round($0.time), $0.a, $0.b, round($0.value, 10_000), round($0.trueDistance, 10_000)] },
            "misses": d.nearMisses.map { [round($0.time), $0.a, $0.b, round($0.value, 10_000)] },
            "contacts": d.contacts.map { [$0.a, $0.b, round($0.start), $0.end.map { round($0) } ?? NSNull()] as [Any] },
            "links": d.links.map { $0.map(Int.init) },
            "series": d.series.map { s in
                s.map { [round($0.time), $0.estimate.map { round($0, 10_000) } ?? NSNull(),
                         $0.raw.map { round($0, 10_000) } ?? NSNull(), round($0.truth, 10_000)] as [Any] }
            },
            "hist": ["raw": hist(d.rawError), "filtered": hist(d.filteredError), "direction": hist(d.directionError),
                     "latency": hist(d.latency)],
            "air": d.air.map { [round($0.time), $0.exchanges, $0.collided, $0.received] as [Any] },
        ]
        payload["summary"] = d.summary ?? NSNull()
        guard let bytes = try? JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys]) else { return "{}" }
        return String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "</", with: "<\\/")
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    static let style = """
        body{font:14px/1.4 system-ui,sans-serif;margin:16px 24px;color:#222;max-width:1100px}
        h1{font-size:20px}h2{font-size:16px;margin:18px 0 6px}
        #map{width:100%;max-width:760px;height:auto;border:1px solid #ccc;background:#fcfcfc;display:block}
        #series{width:100%;max-width:760px;height:260px;border:1px solid #ccc;display:block}
        .grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(330px,1fr));gap:8px}
        figure{margin:0}figure svg{width:100%;height:170px;border:1px solid #eee}figcaption{font-size:12px;color:#555}
        .controls{display:flex;gap:8px;align-items:center;margin-bottom:6px}#slider{flex:1;max-width:560px}
        table{border-collapse:collapse;font-size:13px}td{border-bottom:1px solid #eee;padding:2px 10px 2px 0;vertical-align:top}
        .legend{font-size:12px;color:#555}.k{display:inline-block;width:12px;height:12px;margin:0 3px 0 10px;vertical-align:middle}
        .dev{background:#1f6fb4;border-radius:6px}.lnk{background:#9cc3e6}.tch{background:#2a9d3a}.bmp{background:#d62728;border-radius:6px}
        .mis{background:#ff9f1c;border-radius:6px}.tru{background:#222}.est{background:#1f6fb4}.raw{background:#bbb}.lim{background:#d62728}
        .track{fill:none;stroke:#ddd}.apart{stroke:#000}.link{stroke:#9cc3e6}.touch{stroke:#2a9d3a}.bump{fill:#d62728;fill-opacity:.75;cursor:pointer}
        .miss{fill:#ff9f1c;fill-opacity:.75;cursor:pointer}.device{fill:#1f6fb4}.facing{stroke:#1f6fb4}
        .axis{stroke:#999}.bar{fill:#6a9fd0}.bar2{fill:#c9c9c9}text{font-size:11px;fill:#555}
        """

    /// Collects the page's errors, before anything else runs, for the browser check.
    static let errorCapture = """
        window.__errors=[];window.addEventListener('error',function(e){window.__errors.push(String(e.message))});
        (function(){var ce=console.error;console.error=function(){window.__errors.push(Array.prototype.join.call(arguments,' '));ce.apply(console,arguments)}})();
        """

    static let script = #"""
        (function(){
        "use strict";
        var D=JSON.parse(document.getElementById('data').textContent);
        var NS='http://www.w3.org/2000/svg';
        function el(name,attrs,parent){var e=document.createElementNS(NS,name);for(var k in attrs)e.setAttribute(k,attrs[k]);if(parent)parent.appendChild(e);return e;}
        function fmt(x,d){return x==null?'-':Number(x).toFixed(d==null?2:d);}
        var S=D.summary,E=D.every||1,N=Math.ceil(D.peers/E),F=D.times.length;
        // A device's place in the frames, or -1 when the trace does not follow it (a crowd's trace follows every E-th).
        function sl(d){return d>=0&&d<D.peers&&d%E===0?d/E:-1;}
        document.getElementById('lead').textContent=(S?('Bumps: '+S.bumps.fired+' fired, '+S.bumps.detected+' of '+S.bumps.trueContacts+' touches detected (precision '+(S.bumps.precision==null?'-':fmt(100*S.bumps.precision,1)+'%')+', recall '+(S.bumps.recall==null?'-':fmt(100*S.bumps.recall,1)+'%')+'); '+S.bumps.nearMisses+' near misses. '):'No summary in this trace. ')+D.bumps.length+' bumps and '+D.misses.length+' near misses in the trace, '+F+' frames of '+(E>1?N+' of '+D.peers+' devices (the trace follows one in '+E+'), ':N+' devices, ')+D.lines+' trace lines.';
        // The room: centimetres, north up.
        var minX=1e9,maxX=-1e9,minY=1e9,maxY=-1e9;
        for(var f=0;f<F;f++)for(var i=0;i<N;i++){var x=D.x[f][i],y=D.y[f][i];if(x<minX)minX=x;if(x>maxX)maxX=x;if(y<minY)minY=y;if(y>maxY)maxY=y;}
        if(F===0){minX=minY=0;maxX=maxY=100;}
        var pad=60,side=Math.max(maxX-minX,maxY-minY)+2*pad;
        var map=document.getElementById('map');
        map.setAttribute('viewBox',(minX-pad)+' '+(-(minY-pad)-side)+' '+side+' '+side);
        var R=Math.max(side/180,6);
        function px(f,i){return D.x[f][i];}function py(f,i){return -D.y[f][i];}
        var tracks=el('g',{},map),marks=el('g',{},map),linkG=el('g',{},map),touchG=el('g',{},map),devG=el('g',{},map);
        var stride=Math.max(1,Math.ceil(F/200));
        for(var i=0;i<N;i++){var pts=[];for(var f=0;f<F;f+=stride)pts.push(px(f,i)+','+py(f,i));el('polyline',{'class':'track',points:pts.join(' '),'stroke-width':R/4},tracks);}
        function frameAt(t){var lo=0,hi=F-1;if(F===0)return 0;if(t<=D.times[0])return 0;while(lo<hi){var m=(lo+hi+1)>>1;if(D.times[m]<=t)lo=m;else hi=m-1;}return lo;}
        var events=[];
        D.bumps.forEach(function(b,k){events.push({kind:'bump',t:b[0],a:b[1],b:b[2],v:b[3],tr:b[4],series:k});});
        D.misses.forEach(function(m,k){events.push({kind:'near miss',t:m[0],a:m[1],b:m[2],v:m[3],tr:m[3],series:D.bumps.length+k});});
        events.forEach(function(e,k){if(F===0)return;var f=frameAt(e.t);
          // Between the pair, or at the one of them the trace follows.
          var ss=[sl(e.a),sl(e.b)].filter(function(s){return s>=0;});if(!ss.length)return;
          var cx=ss.reduce(function(a,s){return a+px(f,s);},0)/ss.length,cy=ss.reduce(function(a,s){return a+py(f,s);},0)/ss.length;
          var c=el('circle',{'class':e.kind==='bump'?(e.tr>0.08?'bump apart':'bump'):'miss','stroke-width':R/2,cx:cx,cy:cy,r:R*1.6},marks);
          // Near misses under the bumps: a pair that stopped short and fired shows its bump.
          if(e.kind!=='bump')marks.insertBefore(c,marks.firstChild);
          el('title',{},c).textContent=e.kind+' at '+fmt(e.t)+' s, devices '+e.a+' and '+e.b+(e.kind==='bump'?', '+fmt(100*e.tr,1)+' cm apart':'');c.addEventListener('click',function(){select.value=String(k);drawSeries();slider.value=String(f);show(f);});});
        var devs=[],faces=[];
        for(var i=0;i<N;i++){devs.push(el('circle',{'class':'device',r:R},devG));faces.push(el('line',{'class':'facing','stroke-width':R/2.5},devG));}
        var slider=document.getElementById('slider'),clock=document.getElementById('clock');
        slider.max=String(Math.max(F-1,0));
        function show(f){if(F===0)return;
          for(var i=0;i<N;i++){var x=px(f,i),y=py(f,i),h=D.h[f][i]*Math.PI/180;devs[i].setAttribute('cx',x);devs[i].setAttribute('cy',y);
            faces[i].setAttribute('x1',x);faces[i].setAttribute('y1',y);faces[i].setAttribute('x2',x+Math.cos(h)*R*3);faces[i].setAttribute('y2',y-Math.sin(h)*R*3);}
          linkG.textContent='';var L=D.links[f]||[];for(var k=0;k+1<L.length;k+=2){var a=sl(L[k]),b=sl(L[k+1]);if(a>=0&&b>=0)el('line',{'class':'link','stroke-width':R/4,x1:px(f,a),y1:py(f,a),x2:px(f,b),y2:py(f,b)},linkG);}
          touchG.textContent='';var t=D.times[f],n=0;D.contacts.forEach(function(c){if(c[2]<=t&&(c[3]==null||c[3]>=t)){n++;var a=sl(c[0]),b=sl(c[1]);if(a>=0&&b>=0)el('line',{'class':'touch','stroke-width':R*1.2,x1:px(f,a),y1:py(f,a),x2:px(f,b),y2:py(f,b)},touchG);}});
          clock.textContent=fmt(t,1)+' s: '+(L.length/2)+' pairs ranged since the frame before, '+n+' touching';}
        slider.addEventListener('input',function(){show(Number(slider.value));});
        var timer=null,play=document.getElementById('play');
        play.addEventListener('click',function(){if(timer){clearInterval(timer);timer=null;play.textContent='Play';return;}
          play.textContent='Pause';timer=setInterval(function(){var f=Number(slider.value)+1;if(f>=F){clearInterval(timer);timer=null;play.textContent='Play';return;}slider.value=String(f);show(f);},100);});
        show(0);
        // #t=SECONDS opens the room at that time (for a link in a bug report, or a screenshot).
        var at=/t=([0-9.]+)/.exec(location.hash);if(at&&F>0){var f0=frameAt(Number(at[1]));slider.value=String(f0);show(f0);}
        // A pair around its event.
        var select=document.getElementById('event');
        events.forEach(function(e,k){var o=document.createElement('option');o.value=String(k);o.textContent=e.kind+' at '+fmt(e.t)+' s, devices '+e.a+'-'+e.b+(e.kind==='bump'?', estimate '+fmt(100*e.v,1)+' cm, true '+fmt(100*e.tr,1)+' cm':', closest '+fmt(100*e.v,1)+' cm');select.appendChild(o);});
        var series=document.getElementById('series');
        function drawSeries(){series.textContent='';var e=events[Number(select.value)];if(!e){el('text',{x:10,y:20},series).textContent='No bump or near miss in this run.';return;}
          var s=D.series[e.series]||[],W=760,H=260,l=44,b=24,t0=e.t-2,t1=e.t+1,ymax=0.5;
          s.forEach(function(p){[p[1],p[2],p[3]].forEach(function(v){if(v!=null&&v>ymax)ymax=Math.min(v,3);});});
          series.setAttribute('viewBox','0 0 '+W+' '+H);
          function X(t){return l+(t-t0)/(t1-t0)*(W-l-10);}function Y(v){return H-b-Math.min(v,ymax)/ymax*(H-b-10);}
          el('line',{'class':'axis',x1:l,y1:H-b,x2:W-10,y2:H-b},series);el('line',{'class':'axis',x1:l,y1:10,x2:l,y2:H-b},series);
          for(var k=0;k<=4;k++){var v=ymax*k/4;el('text',{x:2,y:Y(v)+4},series).textContent=fmt(100*v,0)+' cm';}
          for(var k=-2;k<=1;k++){el('text',{x:X(e.t+k)-8,y:H-6},series).textContent=(k>0?'+':'')+k+' s';}
          el('line',{x1:l,x2:W-10,y1:Y(0.08),y2:Y(0.08),stroke:'#d62728','stroke-dasharray':'5,4'},series);
          el('line',{x1:X(e.t),x2:X(e.t),y1:10,y2:H-b,stroke:'#999','stroke-dasharray':'2,3'},series);
          function path(idx,color){var d='';s.forEach(function(p){if(p[idx]==null)return;d+=(d?'L':'M')+X(p[0]).toFixed(1)+','+Y(p[idx]).toFixed(1);});if(d)el('path',{d:d,fill:'none',stroke:color,'stroke-width':2},series);}
          s.forEach(function(p){if(p[2]!=null)el('circle',{cx:X(p[0]),cy:Y(p[2]),r:2.5,fill:'#bbb'},series);});
          path(3,'#222');path(1,'#1f6fb4');
          if(s.length===0)el('text',{x:l+10,y:30},series).textContent='No update of this pair traced in the window (see --trace-update-interval).';}
        select.addEventListener('change',drawSeries);drawSeries();
        // Distributions.
        function bars(id,h,scale,unit){var svg=document.getElementById(id),W=330,H=170,l=36,b=22;svg.setAttribute('viewBox','0 0 '+W+' '+H);
          var n=h.counts.length,max=Math.max.apply(null,h.counts.concat([1])),bw=(W-l-6)/n,total=h.counts.reduce(function(a,c){return a+c;},0);
          h.counts.forEach(function(c,k){var hh=c/max*(H-b-10);el('rect',{'class':k===n-1?'bar2':'bar',x:l+k*bw,y:H-b-hh,width:Math.max(bw-1,1),height:hh},svg);});
          el('line',{'class':'axis',x1:l,y1:H-b,x2:W-6,y2:H-b},svg);
          [0,Math.floor(n/2),n-1].forEach(function(k){el('text',{x:l+k*bw,y:H-6},svg).textContent=fmt((h.from+k*h.width)*scale,scale===1?1:0)+(k===n-1?'+':'')+unit;});
          el('text',{x:2,y:14},svg).textContent='n='+total;}
        bars('h-raw',D.hist.raw,100,'');bars('h-filtered',D.hist.filtered,100,'');bars('h-direction',D.hist.direction,1,'');bars('h-latency',D.hist.latency,1,'');
        (function(){var svg=document.getElementById('bands'),W=330,H=170,l=36,b=22;svg.setAttribute('viewBox','0 0 '+W+' '+H);
          var bs=S&&S.ranging&&S.ranging.bands?S.ranging.bands:[];if(!bs.length){el('text',{x:10,y:20},svg).textContent='No summary in this trace.';return;}
          var max=Math.max.apply(null,bs.map(function(x){return x.perPairPerSecond||0;}).concat([0.01])),bw=(W-l-6)/bs.length;
          bs.forEach(function(x,k){var v=x.perPairPerSecond||0,hh=v/max*(H-b-20);el('rect',{'class':'bar',x:l+k*bw+4,y:H-b-hh,width:bw-8,height:hh},svg);
            el('text',{x:l+k*bw+4,y:H-b-hh-3},svg).textContent=fmt(v,v<0.1?3:1);el('text',{x:l+k*bw+4,y:H-6},svg).textContent=x.fromMetres+'-'+x.toMetres+' m';});})();
        (function(){var svg=document.getElementById('air'),W=330,H=170,l=36,b=22;svg.setAttribute('viewBox','0 0 '+W+' '+H);
          if(!D.air.length){el('text',{x:10,y:20},svg).textContent='No air lines in this trace.';return;}
          var cap=S&&S.ranging&&S.ranging.airtime?S.ranging.airtime.capacityPerSecond:0,max=Math.max.apply(null,D.air.map(function(a){return a[1];}).concat([cap,1])),T=D.air[D.air.length-1][0]||1;
          function X(t){return l+t/T*(W-l-6);}function Y(v){return H-b-v/max*(H-b-10);}
          var d='';D.air.forEach(function(a){d+=(d?'L':'M')+X(a[0]).toFixed(1)+','+Y(a[1]).toFixed(1);});el('path',{d:d,fill:'none',stroke:'#1f6fb4','stroke-width':1.5},svg);
          if(cap>0)el('line',{x1:l,x2:W-6,y1:Y(cap),y2:Y(cap),stroke:'#d62728','stroke-dasharray':'4,3'},svg);
          el('line',{'class':'axis',x1:l,y1:H-b,x2:W-6,y2:H-b},svg);el('text',{x:2,y:14},svg).textContent=fmt(max,0)+'/s';el('text',{x:W-40,y:H-6},svg).textContent=fmt(T,0)+' s';})();
        // Figures.
        function rows(id,pairs){var tb=document.getElementById(id);pairs.forEach(function(p){var tr=document.createElement('tr'),a=document.createElement('td'),b=document.createElement('td');a.textContent=p[0];b.textContent=p[1];tr.appendChild(a);tr.appendChild(b);tb.appendChild(tr);});}
        rows('settings',Object.keys(D.run).sort().map(function(k){var v=D.run[k];return [k,typeof v==='object'?JSON.stringify(v):String(v)];}));
        if(S){var B=S.bumps,R0=S.ranging;rows('summary',[
          ['discovery',S.discovery.sessions+' of '+S.discovery.expectedSessions+' sessions; converged in '+fmt(S.discovery.convergenceSeconds)+' s'],
          ['ranging',R0.exchanges+' exchanges, '+R0.received+' received, '+R0.updatesDelivered+' updates; '+fmt(R0.airtime.overCapacity)+' times one channel\u2019s air'],
          ['distance error','raw rmse '+fmt(100*(S.distanceRaw.rmse||0),1)+' cm, p95 '+fmt(100*(S.distanceRaw.p95||0),1)+' cm; filtered rmse '+fmt(100*(S.distanceFiltered.rmse||0),1)+' cm, p95 '+fmt(100*(S.distanceFiltered.p95||0),1)+' cm'],
          ['direction error','p50 '+fmt(S.direction.p50Degrees,1)+'\u00b0, p95 '+fmt(S.direction.p95Degrees,1)+'\u00b0; none in '+fmt(100*S.direction.nilShare,1)+'% of updates'],
          ['bumps',B.fired+' fired; '+B.detected+' of '+B.trueContacts+' touches; precision '+(B.precision==null?'-':fmt(100*B.precision,1)+'%')+', recall '+(B.recall==null?'-':fmt(100*B.recall,1)+'%')],
          ['latency','p50 '+fmt(B.latencyP50)+' s, p95 '+fmt(B.latencyP95)+' s; '+B.earlyDetections+' early'],
          ['false bumps',B.falseBumps+' ('+B.falseByTrueDistance.map(function(x){return x.count;}).join(' / ')+' up to 8, 8-12, 12-20, beyond 20 cm); '+B.unscoredBumps+' unscored'],
          ['near misses',B.nearMisses+' ('+B.nearMissesByDistance.map(function(x){return x.count;}).join(' / ')+' at 8-12, 12-20, 20-25 cm); '+B.brushes+' brushes']]);}
        else rows('summary',[['summary','none: the trace has no summary line (an older version wrote it)']]);
        // The browser check: #selftest fills a report of what the page did.
        if(location.hash==='#selftest'){var out={errors:window.__errors,bumpMarkers:document.querySelectorAll('#map circle.bump').length,
            missMarkers:document.querySelectorAll('#map circle.miss').length,summaryBumps:S?S.bumps.fired:null,frames:F,devices:devs.length};
          var before=devs.length?[devs[0].getAttribute('cx'),devs[0].getAttribute('cy')]:[];
          var moved=0;if(F>1){slider.value=String(F-1);slider.dispatchEvent(new Event('input'));
            for(var i=0;i<N;i++){if(D.x[0][i]!==D.x[F-1][i]||D.y[0][i]!==D.y[F-1][i]){if(devs[i].getAttribute('cx')===String(px(F-1,i))&&devs[i].getAttribute('cy')===String(py(F-1,i)))moved++;}}
            slider.value='0';slider.dispatchEvent(new Event('input'));}
          out.movedBySlider=moved;out.movers=0;for(var i=0;i<N;i++)if(F>1&&(D.x[0][i]!==D.x[F-1][i]||D.y[0][i]!==D.y[F-1][i]))out.movers++;
          out.backAtStart=devs.length?(devs[0].getAttribute('cx')===before[0]&&devs[0].getAttribute('cy')===before[1]):true;
          out.renderMs=Math.round(performance.now());var pre=document.getElementById('selftest');pre.textContent=JSON.stringify(out);pre.hidden=false;}
        })();
        """#
}
